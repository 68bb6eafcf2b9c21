package yarnid

import "testing"

// Application ids in caller contexts (MapReduce, Spark, YARN containers
// with an epoch, attempts) and in task output paths; none in Hive query
// ids or plain words.
func TestAppID(t *testing.T) {
	for in, want := range map[string]string{
		"mr_attempt_1710000000000_0042_m_000003_0":                                "application_1710000000000_0042",
		"SPARK_DRIVER_application_1700000000000_12345":                            "application_1700000000000_12345",
		"container_e17_1700000000000_0001_01_000002":                              "application_1700000000000_0001",
		"HIVE_QUERY_ID:hive_20240101_abc":                                         "",
		"job_1700000000000_0003":                                                  "application_1700000000000_0003",
		"CLI":                                                                     "",
		"appattempt_1700000000000_0009_000001,signature=xyz12":                    "application_1700000000000_0009",
		"/out/_temporary/1/_temporary/attempt_1700000000000_0042_m_000001_0/part": "application_1700000000000_0042",
		"/user/alice/.sparkStaging/application_1700000000000_0042/app.jar":        "application_1700000000000_0042",
		"/data/job_123_4567":                                                      "", // too short for a cluster timestamp
	} {
		if got := AppID(in); got != want {
			t.Errorf("AppID(%q) = %q, want %q", in, got, want)
		}
	}
}
