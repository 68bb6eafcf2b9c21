package plan

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// benchWorld is the planning benchmark: 1,000 recurring jobs,
// hourly, 6-hourly and daily, skylines of 5–240 one-minute steps of 1–20
// containers, windows 1.5–3.5× the skyline, random arrivals; LCM one day.
func benchWorld() []Job {
	rng := rand.New(rand.NewPCG(11, 12))
	periods := []float64{3600, 6 * 3600, 86400}
	jobs := make([]Job, 1000)
	for i := range jobs {
		p := periods[rng.IntN(3)]
		k := 5 + rng.IntN(236)
		sky := make([]int64, k)
		for s := range sky {
			sky[s] = int64(1 + rng.IntN(20))
		}
		w := math.Ceil(float64(k) * (1.5 + 2*rng.Float64()))
		arr := math.Floor(rng.Float64()*p/60) * 60
		jobs[i] = Job{ID: string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)), PeriodS: p,
			ArrivalS: arr, DeadlineS: arr + w*60, Skyline: sky}
	}
	return jobs
}

func benchPack(b *testing.B, fillFn func([]int64, []int64, int, int, int64) int, jobs []Job) {
	old := fillStage
	fillStage = fillFn
	defer func() { fillStage = old }()
	var p *Packing
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		if p, err = Pack(jobs, PackOptions{StepS: 60, LCMCapS: 86400, EndPoints: 64}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.TotalAlloc-before)/float64(b.N)/(1<<20), "MiB-alloc/op")
	b.ReportMetric(float64(p.Footprint), "footprint")
	b.ReportMetric(float64(p.NaiveFootprint), "naive")
	b.ReportMetric(float64(p.LowerBound), "lower-bound")
}

// BenchmarkPack1000 plans the 1,000 jobs with the batched water-filling;
// BenchmarkPack1000UnitGreedy is the baseline, the same LowCost placing
// one container at a time (its definition), on the first 100 jobs (the
// whole world takes minutes): compare per job.
func BenchmarkPack1000(b *testing.B) { benchPack(b, fill, benchWorld()) }

func BenchmarkPack100(b *testing.B) { benchPack(b, fill, benchWorld()[:100]) }

func BenchmarkPack100UnitGreedy(b *testing.B) { benchPack(b, unitGreedy, benchWorld()[:100]) }
