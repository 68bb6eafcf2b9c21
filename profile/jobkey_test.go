package profile

import "testing"

// Real job names from wlprof's bundled fixtures (testdata/SOURCES.md of the
// repository), each with the key its profile is filed under, as the report
// writes it.
func TestJobKeyRealNames(t *testing.T) {
	for _, c := range []struct {
		name, key, where string
	}{
		// OpenLineage runs of testdata/provenance/world: the job name
		// carries the run's date or hour.
		{"daily_sales_01 2024-01-08", "daily_sales_01 <date>", "provenance/world OpenLineage job name"},
		{"hourly_clicks_00 2024-01-01T00", "hourly_clicks_00 <date>", "provenance/world OpenLineage job name"},
		{"hourly_clicks_08 2024-01-06T23", "hourly_clicks_08 <date>", "provenance/world OpenLineage job name"},
		// OpenLineage's Marquez example events: no changing part.
		{"grandmas.kitchen/prepare_apple_pie", "grandmas.kitchen/prepare_apple_pie", "Marquez example namespace/job"},
		{"gather_apples", "gather_apples", "Marquez example job"},
		// Names with ids, paths with partitions.
		{"spark job application_1700000000000_0042 x", "spark job <application> x", "a name carrying its YARN id"},
		{"/warehouse/sales/dt=2024-01-31/hour=05", "/warehouse/sales/dt=<v>/hour=<v>", "a partitioned path"},
		{"report 3f2b9c1e-8a1d-4c6e-9f00-0123456789ab", "report <uuid>", "a name with a UUID"},
		{"etl-20240131-run17", "etl-<n>-run<n>", "a compact date and a run number"},
		{"query #1234 for 2024/01/31", "query #<n> for <date>", "a numbered query"},
		{"top10 v2 job042", "top10 v2 job042", "short numbers name jobs"},
	} {
		if got := JobKey(c.name); got != c.key {
			t.Errorf("JobKey(%q) (%s) = %q, want %q", c.name, c.where, got, c.key)
		}
		if got := JobKey(c.key); got != c.key {
			t.Errorf("JobKey(%q) = %q: a key must be its own key", c.key, got)
		}
	}
}

func TestAppJobKeyRealNames(t *testing.T) {
	for _, c := range []struct {
		name, key, where string
	}{
		// Hadoop ResourceEstimator's rmLog.txt ApplicationSummary names.
		{"FraudDetection-1", "FraudDetection", "ResourceEstimator rmLog.txt"},
		{"Test-1", "Test", "ResourceEstimator rmLog.txt"},
		{"Test:7", "Test", "ResourceEstimator rmLog.txt"},
		// Spark event logs' App Name and a MapReduce .jhist jobName.
		{"PythonPi", "PythonPi", "Spark event log"},
		{"Spark shell", "Spark shell", "Spark event log"},
		{"QuasiMonteCarlo", "QuasiMonteCarlo", "MapReduce job history"},
		{"tpch_q12", "tpch_q12", "ResourceEstimator recurring id"},
		// The same daily job as submitted to YARN: the date is dropped.
		// Every all-digit token goes, short ones too: "_01" with the date.
		{"daily_sales_01 2024-01-08", "daily_sales", "a YARN application name with its date"},
		{"daily_etl_2024-01-31", "daily_etl", "a YARN application name with its date"},
		{"etl-20240131T120000Z", "etl", "a compact timestamp"},
		{"load 7f3e2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6 done", "load done", "a UUID"},
		{"job_deadbeef1234cafe", "job", "a hex id"},
		{"12345", "12345", "nothing left: kept as it is"},
	} {
		if got := AppJobKey(c.name); got != c.key {
			t.Errorf("AppJobKey(%q) (%s) = %q, want %q", c.name, c.where, got, c.key)
		}
	}
}
