package kube

import (
	"fmt"
	"strings"

	"github.com/wlprof/wlprof/dataset"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Kinds wlprof patches.
const (
	Deployment  = "Deployment"
	StatefulSet = "StatefulSet"
	DaemonSet   = "DaemonSet"
	CronJob     = "CronJob"
	Job         = "Job"
)

// kinds maps what a tenant or job id may write (any case, plural, or
// kubectl's short name) to the kind.
var kinds = map[string]string{
	"deployment": Deployment, "deployments": Deployment, "deploy": Deployment,
	"statefulset": StatefulSet, "statefulsets": StatefulSet, "sts": StatefulSet,
	"daemonset": DaemonSet, "daemonsets": DaemonSet, "ds": DaemonSet,
	"cronjob": CronJob, "cronjobs": CronJob, "cj": CronJob,
	"job": Job, "jobs": Job,
}

// Ref names one Kubernetes object.
type Ref struct {
	Namespace, Kind, Name string
}

func (r Ref) String() string { return r.Namespace + "/" + r.Kind + "/" + r.Name }

// less orders objects by namespace, kind, name.
func (r Ref) less(o Ref) bool {
	if r.Namespace != o.Namespace {
		return r.Namespace < o.Namespace
	}
	if r.Kind != o.Kind {
		return r.Kind < o.Kind
	}
	return r.Name < o.Name
}

// ParseTenant reads a usage tenant: NAMESPACE/KIND/NAME or
// NAMESPACE/KIND/NAME/CONTAINER. container is "" when the tenant names no
// container. A tenant that is not a workload's gives an error saying why.
func ParseTenant(tenant string) (ref Ref, container string, err error) {
	p := strings.Split(tenant, "/")
	switch len(p) {
	case 1:
		if len(validation.IsDNS1123Label(tenant)) == 0 {
			return Ref{}, "", fmt.Errorf("tenant %q names no workload (NAMESPACE/KIND/NAME[/CONTAINER]): a namespace's usage cannot be patched (wlprof ingest prometheus --tenant-key workload names workloads)", tenant)
		}
		return Ref{}, "", fmt.Errorf("tenant %q: not a Kubernetes workload (NAMESPACE/KIND/NAME[/CONTAINER])", tenant)
	case 3, 4:
	default:
		return Ref{}, "", fmt.Errorf("tenant %q: not a Kubernetes workload (NAMESPACE/KIND/NAME[/CONTAINER])", tenant)
	}
	ref, err = newRef(p[0], p[1], p[2])
	if err != nil {
		return Ref{}, "", fmt.Errorf("tenant %q: %w", tenant, err)
	}
	if len(p) == 4 {
		container = p[3]
		if errs := validation.IsDNS1123Label(container); len(errs) > 0 {
			return Ref{}, "", fmt.Errorf("tenant %q: container name %q: %s", tenant, container, errs[0])
		}
	}
	return ref, container, nil
}

// ParseJob reads a recurring job's id as a CronJob's: NAMESPACE/NAME,
// NAMESPACE/KIND/NAME (KIND CronJob or Job), or a bare NAME, which is a
// CronJob in namespace when namespace is not "" (the dataset came from
// Kubernetes) and an error otherwise.
func ParseJob(job, namespace string) (Ref, error) {
	p := strings.Split(job, "/")
	var ref Ref
	var err error
	switch len(p) {
	case 1:
		if namespace == "" {
			return Ref{}, fmt.Errorf("job %q: no namespace (name jobs NAMESPACE/NAME; bare names are CronJobs of --namespace only in a dataset ingested from Kubernetes)", job)
		}
		ref, err = newRef(namespace, CronJob, job)
	case 2:
		ref, err = newRef(p[0], CronJob, p[1])
	case 3:
		ref, err = newRef(p[0], p[1], p[2])
		if err == nil && ref.Kind != CronJob && ref.Kind != Job {
			return Ref{}, fmt.Errorf("job %q: kind %s: a job's runs are a CronJob's or a Job's", job, ref.Kind)
		}
	default:
		return Ref{}, fmt.Errorf("job %q: not a Kubernetes CronJob (NAMESPACE/NAME or NAMESPACE/CronJob/NAME)", job)
	}
	if err != nil {
		return Ref{}, fmt.Errorf("job %q: %w", job, err)
	}
	return ref, nil
}

func newRef(ns, kind, name string) (Ref, error) {
	k, ok := kinds[strings.ToLower(kind)]
	if !ok {
		return Ref{}, fmt.Errorf("kind %q: wlprof patches Deployments, StatefulSets, DaemonSets, CronJobs and Jobs (patch the owner of a ReplicaSet or Pod)", kind)
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return Ref{}, fmt.Errorf("namespace %q: %s", ns, errs[0])
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return Ref{}, fmt.Errorf("name %q: %s", name, errs[0])
	}
	// A CronJob's Jobs are named NAME-<11 digits>, within a label's 63.
	if k == CronJob && len(name) > 52 {
		return Ref{}, fmt.Errorf("name %q: a CronJob's name is at most 52 characters", name)
	}
	return Ref{Namespace: ns, Kind: k, Name: name}, nil
}

// Formats are the ingest formats that read Kubernetes: a dataset holding
// any of them came from Kubernetes (dataset.KubernetesFormats).
var Formats = dataset.KubernetesFormats

// FromKubernetes says whether the dataset's manifest lists a source of a
// Kubernetes ingest format (Formats): then servers are nodes, tenants
// namespaces or workloads, and recurring jobs CronJobs.
func FromKubernetes(m *dataset.Manifest) bool { return dataset.FromKubernetes(m) }
