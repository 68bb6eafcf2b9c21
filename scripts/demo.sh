#!/bin/sh
# The whole pipeline on bundled fixtures and synthetic data, every stage.
# Usage: scripts/demo.sh BIN OUT
set -eu
bin=$1
out=$2
rm -rf "$out"
mkdir -p "$out"
ds="$out/dataset"

echo "== 1. a synthetic world: 25 tenants, 14 days at 2-minute steps, known patterns (truth.json beside it)"
"$bin" synth --out "$out/world" --tenants 25 --days 14 --seed 1

echo "== 2. profile a reference workload that spills (external merge sort, testdata/profiler/spillsort)"
go build -o "$out/spillsort" ./testdata/profiler/spillsort
"$bin" profile run -d "$ds" -q --job spillsort --task reduce --mem 2M,64M --slots 1,2 --repeat 2 \
  --cap-overhead 16M --phase-regex '^phase: (\w+)' --input-bytes 16M -- "$out/spillsort" -gen 16M -mem {mem} -spill {spill_dir}

echo "== 3. profile GNU sort -S {mem} -T {spill_dir} over a generated file"
awk 'BEGIN { srand(1); for (i = 0; i < 200000; i++) printf "%08x %d\n", int(rand() * 4294967295), i }' >"$out/lines.txt"
LC_ALL=C "$bin" profile run -d "$ds" -q --job gnu-sort --mem 1M,64M --repeat 2 --cap-overhead 16M \
  --input "$out/lines.txt" -- sort -S {mem} -T {spill_dir} -o /dev/null {input}

echo "== 4. the whole pipeline: wlprof run detects every input's format, ingests, runs every stage, writes the report"
echo "   (bundled fixtures include malformed records on purpose: they land in the rejects table and the exit status is 3)"
set +e
"$bin" run --out "$out" -d "$ds" --step 5s --yarn-queue dedicated --overrides testdata/plan/overrides.yaml \
  --simulate-trace testdata/simulate/demo.csv --simulate-nodes 4 --simulate-node-memory 16G --simulate-default-model step:1.5 \
  --estimate-jobs testdata/estimate/jobs.yaml --harvest --harvest-workload poisson \
  "$out/world/usage.csv" testdata/usage_with_rejects.csv testdata/timeseries testdata/traces \
  testdata/resourceestimator/tpch_q12.txt testdata/jobs testdata/elasticity testdata/provenance
status=$?
set -e
[ "$status" -eq 0 ] || [ "$status" -eq 3 ] || { echo "demo: wlprof run failed (exit $status)" >&2; exit 1; }

echo "   the report's profiles, read by profile/FORMAT.md's Python reader (standard library only; it holds each file"
echo "   to the format's rule with the schemas the report ships, and fails on one that breaks it):"
awk '/^```python$/ { f = 1; next } /^```$/ { f = 0 } f' profile/FORMAT.md >"$out/read_profiles.py"
/usr/bin/python3 "$out/read_profiles.py" "$out/report" >"$out/read_profiles.txt"
grep -E '^(spillsort|gnu-sort|tpch_q12|daily_sales_01)' "$out/read_profiles.txt"

echo "== 5. SLOs inferred from provenance (HDFS audit log + OpenLineage runs of testdata/provenance), with user overrides"
"$bin" slo -d "$ds" --overrides testdata/provenance/overrides.yaml
"$bin" slo -d "$ds" --overrides testdata/provenance/overrides.yaml -o json > "$out/slo.json"

echo "== 6. the stages one by one, on the same dataset"
"$bin" classify -d "$ds" | head -20
"$bin" skyline -d "$ds" --job tpch_q12 --step 5s --alpha-sweep 0.01,0.1,0.5,0.9
# The id comes from the ResourceManager (POST .../reservation/new-reservation);
# the demo has none, so it saves a response of that call's shape.
echo '{"reservation-id":"reservation_1700000000000_0001"}' >"$out/new-reservation.json"
"$bin" export yarn-reservation -d "$ds" --job tpch_q12 --queue dedicated --new-reservation "$out/new-reservation.json" --step 5s --period 1h >"$out/yarn-reservation-tpch_q12.json"
"$bin" elasticity -d "$ds" --job wordcount
echo "== 7. what the skylines buy: LowCost packing over the LCM and held-out replay (Jyothi et al., OSDI'16 §6-§9)"
"$bin" plan -d "$ds" --step 5s --overrides testdata/plan/overrides.yaml
"$bin" profile show -d "$ds" --job spillsort
echo "== 8. what memory elasticity buys: a trace on 4 nodes of 16 GiB under YARN and YARN-ME (Iorgulescu et al., ATC'17 §3-§4);"
echo "   wordcount, pagerank and join run with the elasticity models fitted in step 4"
"$bin" simulate -d "$ds" --trace testdata/simulate/demo.csv --nodes 4 --node-memory 16G --default-model step:1.5
"$bin" simulate -d "$ds" -q --trace testdata/simulate/demo.csv --nodes 3,4,6 --node-memory 16G,32G --default-model step:1.5 \
  --target-makespan 15m | grep '^target'
echo "   without --trace the workload is the dataset's own history: every run whose task attempts came from the"
echo "   bundled .jhist and Spark logs, on a cluster smaller than the one they ran on (OBSERVED_JCT is the real run)"
"$bin" simulate -d "$ds" --nodes 1 --node-memory 4G --node-cores 4 --policy yarn | tail -n +2
echo "== 9. what each job needs to meet its goal: Polo's s_req and s_fit against the slots the periodic tenants leave"
echo "   (Polo, PhD thesis, UPC 2014 §3.4, §5.3.4; task counts and lengths the dataset lacks come from testdata/estimate/jobs.yaml)"
"$bin" estimate -d "$ds" --jobs testdata/estimate/jobs.yaml --at 2024-01-07T06:00:00Z --slot-cpu 0.5 | head -16
echo "== 10. what the tenant classes buy: harvesting spare cores by Algorithm 1's class selection against a"
echo "   history-blind placement, over the primary tenants' real usage (Zhang et al., OSDI'16 §4-§6; a Poisson batch stream)"
"$bin" harvest -d "$ds" --workload poisson --seed 5 --window 3d | head -8
echo "== 11. the most containers each job asks for at once, from its stage DAG (Zhang et al., OSDI'16 §4.1, Fig. 7): the Spark"
echo "   and MapReduce runs of step 4, then Alibaba 2018 batch_task rows written from the trace's schema (testdata/dag;"
echo "   three rows are rejects on purpose, so that ingest exits 3)"
"$bin" dag -d "$ds"
"$bin" ingest -d "$out/dags" -q alibaba2018-batch-task testdata/dag/batch_task_schema_sample.csv >/dev/null 2>&1 || test $? -eq 3
"$bin" dag -d "$out/dags"
echo "== 12. where replicas go: Harvest's (Zhang et al., OSDI'16) 3 x 3 classes (reimage rate x peak CPU, equal storage per class, Algorithm 2)"
echo "   on testdata/placement, a world written from the Google 2019 machine_events schema (the bundled traces have no"
echo "   machine history to speak of; REMOVE events stand in for reimages)"
"$bin" ingest auto -d "$out/placement" -q testdata/placement/usage.csv testdata/placement/machine_events.json
"$bin" placement -d "$out/placement" --stability-window 2d | head -14
"$bin" report -d "$out/placement" --out "$out/placement-report" --placement --placement-stability-window 2d -q

echo "== 13. how long constrained tasks wait: Phoenix's constraint profile, demand over supply per attribute and an M/G/1"
echo "   per constraint against the observed waits (Thinakaran et al., Phoenix), on Google 2011 task_events, task_constraints and"
echo "   machine_attributes rows written from the trace's schema (testdata/constraints; some rows are rejects on purpose)"
"$bin" ingest -d "$out/constraints" -q auto testdata/constraints/google2011 >/dev/null 2>&1 || test $? -eq 3
"$bin" constraints -d "$out/constraints"

cat <<TXT

Dataset: $ds (Parquet tables + manifest.json; DuckDB, pandas and Spark read it as is).
Report:  open $out/report/index.html in a browser (self-contained; profiles/ and tenants.json
         beside it are what schedulers load; reservations/ holds YARN reservation requests);
         $out/placement-report/index.html has the replica-placement section of step 12.
TXT
