package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Annotation keys every patch sets.
const (
	AnnotationEvidence = "wlprof/evidence"
	AnnotationCommand  = "wlprof/command"
)

// Object is the patch as the Kubernetes API type of its kind:
// *appsv1.Deployment, *appsv1.StatefulSet, *appsv1.DaemonSet,
// *batchv1.CronJob or *batchv1.Job, with only what wlprof sets.
func (r *Result) Object(p *Patch) (any, error) {
	ev, err := evidenceText(p.Evidence)
	if err != nil {
		return nil, err
	}
	meta := metav1.ObjectMeta{Name: p.Ref.Name, Namespace: p.Ref.Namespace,
		Annotations: map[string]string{AnnotationEvidence: ev}}
	if r.command != "" {
		meta.Annotations[AnnotationCommand] = r.command
	}
	var tpl corev1.PodTemplateSpec
	for _, c := range p.Containers {
		tpl.Spec.Containers = append(tpl.Spec.Containers, corev1.Container{Name: c.Name, Resources: c.Resources()})
	}
	var par *int32
	if p.Parallelism > 0 {
		n := p.Parallelism
		par = &n
	}
	tm := func(api string) metav1.TypeMeta { return metav1.TypeMeta{APIVersion: api, Kind: p.Ref.Kind} }
	switch p.Ref.Kind {
	case Deployment:
		return &appsv1.Deployment{TypeMeta: tm("apps/v1"), ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Template: tpl}}, nil
	case StatefulSet:
		return &appsv1.StatefulSet{TypeMeta: tm("apps/v1"), ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Template: tpl}}, nil
	case DaemonSet:
		return &appsv1.DaemonSet{TypeMeta: tm("apps/v1"), ObjectMeta: meta, Spec: appsv1.DaemonSetSpec{Template: tpl}}, nil
	case CronJob:
		return &batchv1.CronJob{TypeMeta: tm("batch/v1"), ObjectMeta: meta,
			Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Parallelism: par, Template: tpl}}}}, nil
	case Job:
		// A Job's template is immutable: only its parallelism is patched.
		return &batchv1.Job{TypeMeta: tm("batch/v1"), ObjectMeta: meta, Spec: batchv1.JobSpec{Parallelism: par}}, nil
	}
	return nil, fmt.Errorf("kube: kind %q", p.Ref.Kind)
}

// Document is the patch as one YAML document: the API type marshalled,
// then every zero value the types write for fields wlprof left unset
// removed (see prune).
func (r *Result) Document(p *Patch) ([]byte, error) {
	obj, err := r.Object(p)
	if err != nil {
		return nil, err
	}
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	prune(m) // a patch has apiVersion, kind and a name: never empty
	j, err = json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(j)
}

// FileName is the file a patch is written to by itself:
// NAMESPACE_KIND_NAME.yaml, kind in lower case (names and namespaces have
// no "_", so it is unique).
func FileName(p *Patch) string {
	return p.Ref.Namespace + "_" + strings.ToLower(p.Ref.Kind) + "_" + p.Ref.Name + ".yaml"
}

// WriteYAML writes every patch as one YAML document, "---" between them.
func (r *Result) WriteYAML(w io.Writer) error {
	var b bytes.Buffer
	for i, p := range r.Patches {
		doc, err := r.Document(p)
		if err != nil {
			return err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(doc)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// prune removes, recursively, null, "", 0, false and empty objects and
// lists: what the API types write for fields left unset (a Deployment's
// selector: null, a CronJob's schedule: "", status: {}). In a strategic
// merge patch each would clear or zero the live object's field. wlprof
// never sets a field to a zero value, so nothing it sets is removed.
func prune(v any) (any, bool) {
	switch x := v.(type) {
	case nil:
		return x, true
	case string:
		return x, x == ""
	case bool:
		return x, !x
	case float64:
		return x, x == 0
	case map[string]any:
		for k, e := range x {
			if e, empty := prune(e); empty {
				delete(x, k)
			} else {
				x[k] = e
			}
		}
		return x, len(x) == 0
	case []any:
		kept := x[:0]
		for _, e := range x {
			if e, empty := prune(e); !empty {
				kept = append(kept, e)
			}
		}
		return kept, len(kept) == 0
	}
	return v, false
}

// evidenceText is the evidence as a JSON list, one entry a line, so the
// YAML shows it as a block a reader can scan number by number.
func evidenceText(ev []Evidence) (string, error) {
	var b strings.Builder
	b.WriteString("[\n")
	for i, e := range ev {
		j, err := json.Marshal(e)
		if err != nil {
			return "", err
		}
		b.Write(j)
		if i < len(ev)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]")
	return b.String(), nil
}
