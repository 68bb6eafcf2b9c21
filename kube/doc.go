// Package kube turns what wlprof knows about Kubernetes workloads into
// patches for them: per container, resources.requests and limits from
// the usage percentiles (memory from the elasticity model where one
// exists), and a CronJob's (or Job's) parallelism from its skyline, each
// number with its evidence. It is an exporter: it reads the dataset
// (usage, machine_events, runs, the manifest) and the published profile
// types (package profile: the skylines and elasticity models the stages
// computed, handed in by the caller), and imports no stage.
//
// # Names
//
// A usage tenant names the workload the Kubernetes way:
//
//	NAMESPACE/KIND/NAME            a pod template's usage (all its containers)
//	NAMESPACE/KIND/NAME/CONTAINER  one container's usage
//	NAMESPACE                      a namespace's: not patched (skipped, said why)
//
// KIND is Deployment, StatefulSet, DaemonSet, CronJob or Job (any case,
// kubectl's short names too). A usage row is what the workload's pods (or
// the container) used on the node its server column names, as fractions of
// that node: wlprof ingest prometheus sums a workload's pods on a node, so
// a sample is one pod's where the replicas run on different nodes (the
// scheduler's default spreading) and more where they share one, which the
// evidence says. Rows of 0 CPU and 0 memory, which the ingest writes where
// none of the pods ran (on the node the tenant last ran on; on server
// "<none>" in datasets of an earlier wlprof), are no sample: no running
// container has a working set of 0 bytes. A CronJob's pods known one by
// one (the instances table: each pod's peak cores and peak working set)
// give per-pod numbers, set on the container the instances' task names
// (the pods' one container), and then its usage is not read; pods of
// several containers cannot be split among them, and their containers'
// usage gives the numbers. A recurring job of the runs, skylines and
// profruns tables (and so of the profiles) is a CronJob: NAMESPACE/NAME,
// NAMESPACE/CronJob/NAME, or a bare NAME in --namespace when the dataset
// came from Kubernetes (FromKubernetes). Its runs are its Jobs and its
// skyline is its pods over time. A Job of its own (NAMESPACE/Job/NAME,
// as the ingest names a Job no CronJob owns) is skipped, its usage, pods
// and profile alike: its runs are Jobs that have finished, which a patch
// no longer changes.
//
// A tenant without a container part sets the container named after the
// workload (what kubectl create deployment NAME and kubectl run NAME
// name it); the evidence says so, and a patch whose container does not
// exist is refused by the API server (a new container needs an image), so
// a wrong guess fails loudly rather than changing another container.
//
// # The numbers
//
// For a CronJob's pods the CPU request is the percentile of the pods'
// peak cores (a Job's pod runs until it is done: it needs its rate while
// running), the memory request that of their peak working sets, and the
// limits the largest pod's peaks; otherwise:
//
//	requests.cpu     the --cpu-percentile (default p95) of the CPU samples,
//	                 in cores (fraction × the node's allocatable CPU),
//	                 rounded up to the millicore. CPU is compressible: above
//	                 its request a container is throttled only when the
//	                 node is contended, so the request covers most samples,
//	                 not the peak.
//	limits.cpu       none by default (a CPU limit throttles a container even
//	                 on an idle node); --cpu-limit peak sets the peak sample.
//	requests.memory  the --memory-percentile (default p99) of the memory
//	                 samples, rounded up to the Mi. Memory is not
//	                 compressible: a pod above its request is the first
//	                 evicted under node memory pressure, so the request
//	                 covers all but 1% of the samples.
//	limits.memory    the peak sample × (1 + --memory-margin), default 15%,
//	                 the Kubernetes VPA recommender's default safety margin,
//	                 rounded up to the Mi: above its limit a container is
//	                 OOM-killed, so the limit is above everything seen.
//	memory (model)   where the workload's profile has an elasticity model
//	                 (Iorgulescu et al., ATC'17 §2) that its own warnings
//	                 do not contradict: request = limit = the least memory
//	                 of the model's curve within --max-slowdown (default
//	                 10%) of the ideal runtime, the largest over the models
//	                 of the container (by task name, else all of the job's:
//	                 the pod runs every task kind). The model's memory is
//	                 the cap the task ran under, so it is the limit too.
//	parallelism      the skyline's peak reservation (Jyothi et al., OSDI'16
//	                 §5): the most pods the fitted reservation holds at once.
//
// Percentiles are Hyndman & Fan type 7 over every sample of the workload
// (every pod, every node, the whole window); Load keeps every sample of
// every workload in memory, 16 bytes each (a month of 1,000 workloads on
// 4 nodes each at one minute: about 2.8 GB). No request or limit exceeds
// the node shape: each is at most the largest allocatable of the
// cluster's nodes (the smallest for a DaemonSet, which runs on every
// node), and a pod's requests summed over its containers fit some node
// (every node, for a DaemonSet), else they are scaled down to the node
// they overflow least, each container keeping its share; a number capped
// says so in its evidence. Node shapes come from machine_events rows
// written by a Kubernetes ingest (cpus in cores, memory in bytes: the
// node's allocatable), else from --node-cpu and --node-memory.
//
// Quantities are Kubernetes' own: millicores ("250m", "2") and binary
// memory ("512Mi", "2Gi"). wlprof's own size flags are binary too
// (--node-memory 16G is 16 GiB), whereas Kubernetes reads "16G" as 16·10⁹
// bytes: the patches never write a decimal memory suffix.
//
// # The patches
//
// One YAML document per object, in the form kubectl patch --type
// strategic and kustomize's patches take: apiVersion, kind,
// metadata.name and namespace, the containers by name (the merge key),
// and only the fields wlprof sets. The objects are built as the
// Kubernetes API types (k8s.io/api apps/v1 and batch/v1) and written with
// sigs.k8s.io/yaml; the zero values those types write for fields left
// unset (selector: null, schedule: "", status: {}) are removed, since in a
// patch they would clear the live object's fields. Every number has an
// entry in the annotation wlprof/evidence (a JSON list: the field, its
// value, where it came from, the statistic, the samples or runs, the
// window, the model, why it was capped), and wlprof/command is the
// command that produced it.
//
// The API server's strategic merge (tested here with apimachinery's
// strategicpatch, the code it runs) keeps every field a patch does not
// name: images, replicas, selector, schedule, other containers and
// annotations. It lists the containers a patch names in the patch's order
// among themselves (by name here) and keeps the other containers' places,
// so a patch of one container, which is all wlprof ingest prometheus's
// workload tenants give, never reorders a pod's containers; a patch of
// several reorders them only where the live object does not list them by
// name. kustomize merges differently: it moves the containers a patch
// names before the others (kubernetes-sigs/kustomize#5904, seen with
// kubectl kustomize v5.5.0: a patch of frontend moved it before the pod's
// istio-proxy), which matters where container order does (a sidecar that
// must start first).
//
// A patch only sets fields. With --cpu-limit none a CPU limit the live
// object has stays; where it is below the new CPU request the API server
// refuses the patch (a request above its limit is invalid): remove the
// limit, or pass --cpu-limit peak.
package kube
