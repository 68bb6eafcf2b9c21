#!/bin/sh
# The pipeline on bundled and synthetic data, as far as it is built.
# Usage: scripts/demo.sh BIN OUT
set -eu
bin=$1
out=$2
rm -rf "$out"
mkdir -p "$out"
ds="$out/dataset"

echo "== synthetic world: 25 tenants, 14 days at 2-minute steps, known patterns"
"$bin" synth --out "$out/world" --tenants 25 --days 14 --seed 1

echo "== ingest the world (generic utilisation CSV)"
"$bin" ingest csv "$out/world/usage.csv" -d "$ds"

echo "== ingest a bundled file with bad rows: they are kept in the rejects table, exit status 3"
set +e
"$bin" ingest auto testdata/usage_with_rejects.csv -d "$ds"
status=$?
set -e
[ "$status" -eq 3 ] || { echo "demo: expected exit status 3 for rejected rows, got $status" >&2; exit 1; }

echo "== ingest job runs: a ResourceManager log (Hadoop ResourceEstimator sample) and Spark event logs → runs and skylines"
"$bin" ingest auto testdata/jobs/resourceestimator/rmLog.txt testdata/jobs/spark -d "$ds"

echo "== skylines: Hadoop ResourceEstimator's tpch_q12 runs (native format), fitted with CLP"
"$bin" ingest re-native testdata/resourceestimator/tpch_q12.txt -d "$ds" -q
"$bin" skyline -d "$ds" --step 5s --alpha-sweep 0.01,0.1,0.5,0.9
"$bin" skyline -d "$ds" --step 5s -o json >"$out/skylines.json"
"$bin" export yarn-reservation -d "$ds" --job tpch_q12 --queue dedicated --step 5s --period 1h >"$out/yarn-reservation-tpch_q12.json"
echo "   wrote $out/skylines.json and $out/yarn-reservation-tpch_q12.json"

echo "== elasticity: synthetic profiling sweeps (Hadoop, Spark, Tez, sandbox) and a real MapReduce job history"
"$bin" ingest profruns-csv testdata/elasticity/profruns.csv -d "$ds" -q
"$bin" ingest jhist testdata/elasticity/hadoop -d "$ds" -q
"$bin" elasticity -d "$ds" --job wordcount
"$bin" elasticity -d "$ds" -o json >"$out/elasticity.json"
echo "   wrote $out/elasticity.json"

echo "== the report: profiles for schedulers, plots, index.html (stages not built yet show as not computed)"
"$bin" report -d "$ds" --out "$out/report" --step 5s

echo "== the dataset"
"$bin" version
sed -n '1,200p' "$ds/manifest.json" | grep -E '"(rows|path|accepted|rejected|format)"' | head -30

echo "== profile a reference workload that spills (external merge sort, testdata/profiler/spillsort)"
go build -o "$out/spillsort" ./testdata/profiler/spillsort
"$bin" profile run -d "$ds" -q --job spillsort --task reduce --mem 2M,64M --slots 1,2 --repeat 2 \
  --cap-overhead 16M --phase-regex '^phase: (\w+)' -- "$out/spillsort" -gen 16M -mem {mem} -spill {spill_dir}
echo "== profile GNU sort -S {mem} -T {spill_dir} over a generated file"
awk 'BEGIN { srand(1); for (i = 0; i < 200000; i++) printf "%08x %d\n", int(rand() * 4294967295), i }' >"$out/lines.txt"
LC_ALL=C "$bin" profile run -d "$ds" -q --job gnu-sort --mem 1M,64M --repeat 2 --cap-overhead 16M \
  -- sort -S {mem} -T {spill_dir} -o /dev/null "$out/lines.txt"

cat <<TXT

Dataset written to $ds (Parquet tables + manifest.json; DuckDB, pandas and Spark read it as is).
Open $out/report/index.html in a browser. The classify, slo, elasticity and profiler stages
are not built yet; the report shows them as not computed until they are.
TXT
