package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Hadoop 1 (the MRv1 JobTracker) wrote job history as text, not Avro: a
// first line Meta VERSION="1" ., then one record a line, a type and
// KEY="VALUE" pairs ending in " .", values escaping '"', '=', '.' and '\'
// with a backslash (JobHistory.java). MapAttempt and ReduceAttempt records
// of TASK_TYPE MAP and REDUCE are the attempts (a START_TIME record, then
// one with TASK_STATUS, FINISH_TIME and COUNTERS); SETUP and CLEANUP
// attempts are the framework's, not the job's, and are left out. The
// attempts become the same profiling runs as a .jhist's.

// jhV1Magic opens a Hadoop 1 history file.
var jhV1Magic = []byte(`Meta VERSION="1"`)

// parseJhistV1 reads a Hadoop 1 history file into p.
func parseJhistV1(p *jhistParse, in *Input, ctx context.Context) error {
	lr := newLineReader(in)
	for {
		line, bad, err := lr.nextLine(ctx, p.path)
		if err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if bad != nil {
			p.reject(lr.line, line, bad)
			continue
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		typ, kv, err := jhV1Record(t)
		if err != nil {
			p.reject(lr.line, t, err)
			continue
		}
		p.eventV1(lr.line, t, typ, kv)
	}
}

// jhV1Record splits a record into its type and its unescaped values.
func jhV1Record(t []byte) (string, map[string]string, error) {
	sp := bytes.IndexByte(t, ' ')
	if sp <= 0 {
		return "", nil, errors.New(`not a Hadoop 1 history record (TYPE KEY="VALUE" ... .)`)
	}
	typ, rest := string(t[:sp]), t[sp+1:]
	kv := map[string]string{}
	for {
		rest = bytes.TrimLeft(rest, " ")
		if len(rest) == 0 {
			return "", nil, errors.New(`record does not end with " ." (cut short?)`)
		}
		if string(rest) == "." {
			return typ, kv, nil
		}
		eq := bytes.Index(rest, []byte(`="`))
		if eq <= 0 {
			return "", nil, fmt.Errorf("%s: want KEY=\"VALUE\" at %q", typ, recordText(rest))
		}
		key := string(rest[:eq])
		rest = rest[eq+2:]
		var v strings.Builder
		closed := false
		i := 0
		for ; i < len(rest); i++ {
			c := rest[i]
			if c == '\\' && i+1 < len(rest) {
				i++
				v.WriteByte(rest[i])
				continue
			}
			if c == '"' {
				closed = true
				break
			}
			v.WriteByte(c)
		}
		if !closed {
			return "", nil, fmt.Errorf("%s: value of %s not closed (cut short?)", typ, key)
		}
		kv[key] = v.String()
		rest = rest[i+1:]
	}
}

// eventV1 reads one record.
func (p *jhistParse) eventV1(line int64, t []byte, typ string, kv map[string]string) {
	switch typ {
	case "Job":
		if kv["JOBNAME"] != "" {
			p.jobName = kv["JOBNAME"]
		}
		if kv["JOBID"] != "" {
			p.jobID = kv["JOBID"]
		}
		return
	case "MapAttempt", "ReduceAttempt":
	default:
		return // Meta, Task: the attempts say what is used
	}
	kind := ""
	switch kv["TASK_TYPE"] {
	case "MAP":
		kind = "map"
	case "REDUCE":
		kind = "reduce"
	default:
		return // SETUP, CLEANUP: the framework's attempts
	}
	id := kv["TASK_ATTEMPT_ID"]
	if id == "" {
		p.reject(line, t, fmt.Errorf("%s without TASK_ATTEMPT_ID", typ))
		return
	}
	ms := func(k string) (*int64, error) {
		v, ok := kv[k]
		if !ok {
			return nil, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s %s=%q is not epoch milliseconds", typ, k, v)
		}
		return &n, nil
	}
	start, err := ms("START_TIME")
	if err != nil {
		p.reject(line, t, err)
		return
	}
	finish, err := ms("FINISH_TIME")
	if err != nil {
		p.reject(line, t, err)
		return
	}
	a := p.attempt(id)
	a.kind, a.task = kind, kv["TASKID"]
	if start != nil {
		a.startMs, a.startLine, a.host = *start, line, kv["TRACKER_NAME"]
	}
	if st := kv["TASK_STATUS"]; st != "" {
		if finish == nil {
			p.reject(line, t, fmt.Errorf("%s with TASK_STATUS but no FINISH_TIME", typ))
			return
		}
		c, err := jhV1Counters(kv["COUNTERS"])
		if err != nil {
			p.reject(line, t, fmt.Errorf("%s COUNTERS: %v", typ, err))
			return
		}
		a.end = &jhEvent{FinishTime: finish, Status: st, Hostname: kv["HOSTNAME"], Counters: jhCountersField{c: c}}
		a.endLine = line
		a.failed = st != "SUCCESS"
		if kv["HOSTNAME"] != "" {
			a.host = kv["HOSTNAME"]
		}
	}
}

// jhV1Counters reads Hadoop 1's counters string,
// {(group)(display)[(name)(display)(value)]...}..., whose names escape
// parentheses, brackets and braces with a backslash. Group names are
// given as the Avro history names them (org.apache.hadoop.mapred.Task$Counter
// is TaskCounter, FileSystemCounters FileSystemCounter), so one reader of
// counters serves both.
func jhV1Counters(s string) (*jhCounters, error) {
	c := &jhCounters{}
	i := 0
	paren := func() (string, error) {
		if i >= len(s) || s[i] != '(' {
			return "", fmt.Errorf("want ( at %d", i)
		}
		var b strings.Builder
		for i++; i < len(s); i++ {
			switch s[i] {
			case '\\':
				if i+1 < len(s) {
					i++
					b.WriteByte(s[i])
				}
			case ')':
				i++
				return b.String(), nil
			default:
				b.WriteByte(s[i])
			}
		}
		return "", errors.New("a name not closed")
	}
	for i < len(s) {
		if s[i] != '{' {
			return nil, fmt.Errorf("want { at %d", i)
		}
		i++
		name, err := paren()
		if err != nil {
			return nil, err
		}
		if _, err := paren(); err != nil {
			return nil, err
		}
		name = strings.ReplaceAll(name, "$", "")
		if strings.HasSuffix(name, "FileSystemCounters") {
			name = strings.TrimSuffix(name, "s")
		}
		g := struct {
			Name   string `json:"name"`
			Counts []struct {
				Name  string `json:"name"`
				Value int64  `json:"value"`
			} `json:"counts"`
		}{Name: name}
		for i < len(s) && s[i] == '[' {
			i++
			cn, err := paren()
			if err != nil {
				return nil, err
			}
			if _, err := paren(); err != nil {
				return nil, err
			}
			v, err := paren()
			if err != nil {
				return nil, err
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("counter %s: %q is not a number", cn, v)
			}
			if i >= len(s) || s[i] != ']' {
				return nil, fmt.Errorf("want ] at %d", i)
			}
			i++
			g.Counts = append(g.Counts, struct {
				Name  string `json:"name"`
				Value int64  `json:"value"`
			}{cn, n})
		}
		if i >= len(s) || s[i] != '}' {
			return nil, fmt.Errorf("want } at %d", i)
		}
		i++
		c.Groups = append(c.Groups, g)
	}
	return c, nil
}
