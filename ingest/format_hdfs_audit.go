// HDFS audit log (format "hdfs-audit").
//
// One NameNode audit line per operation: a log4j prefix whose timestamp
// ("2024-01-31 12:00:00,123") is in the NameNode's local time
// (Options.Location, wlprof ingest --tz) unless it carries an offset, then
// tab-separated allowed= ugi= ip= cmd= src= dst= perm= [proto=]
// [callerContext=] [trackingId=]. Rows go to the provenance table:
//
//   - Op: create/append/concat/truncate → write; rename (any options) →
//     rename (Dst is where the data became available); open → read;
//     delete → delete; known metadata commands → meta; unknown commands are
//     kept as other (Cmd holds the command) and counted in the source's
//     notes, not rejected: a line that parses is not a bad record, and new
//     Hadoop versions add commands. allowed=false → denied.
//   - User: the effective user's short name ("alice" of "alice (auth:TOKEN)
//     via hive (auth:KERBEROS)", "hdfs" of "hdfs/host@REALM").
//   - Run and Attribution: the YARN application a callerContext (or
//     trackingId) names (MapReduce attempt/job/container ids, Spark's
//     application id), with "callerContext" or "trackingId". The slo stage
//     attributes the rest.
//
// A line without the audit fields, without a parsable timestamp, or missing
// any of allowed, ugi, ip, cmd, src, dst, perm (a truncated line) is
// rejected with its line number. See FuzzHDFSAudit and
// BenchmarkScanHDFSAudit.

package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
	"github.com/wlprof/wlprof/internal/yarnid"
)

func init() {
	register(&Format{
		Name:        "hdfs-audit",
		Table:       dataset.ProvenanceTable.Name,
		Description: "HDFS NameNode audit log (allowed= ugi= ip= cmd= src= dst= perm= proto=, tab separated); --tz for its local times",
		Detect: func(name string, head []byte) bool {
			l := firstLine(head)
			return bytes.Contains(l, []byte("allowed=")) && bytes.Contains(l, []byte("\tcmd=")) && bytes.Contains(l, []byte("\tsrc="))
		},
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			r := newHDFSAudit(in, s.opts.Location)
			return drain[dataset.Provenance](ctx, s, r, s.tx.Provenance())
		},
	})
}

// Operations of the provenance table, as hdfs-audit maps HDFS commands to
// them. Only write, rename, read and delete move data; the rest is kept so
// that nothing read is lost, and so that the slo stage can say what it
// ignored.
const (
	OpWrite  = "write"  // create, append, concat, truncate: data is being written
	OpRename = "rename" // src moved to dst; a rename into place is when data becomes available
	OpRead   = "read"   // open
	OpDelete = "delete"
	OpMeta   = "meta"   // known metadata commands (listStatus, getfileinfo, mkdirs, setPermission, ...)
	OpOther  = "other"  // a command this parser does not know; the raw command is in Cmd
	OpDenied = "denied" // allowed=false: the NameNode refused it, nothing happened
)

// hdfsCommands maps the audit log's cmd= values to operations. Commands
// missing here are kept as OpOther (and counted in the source's notes), not
// rejected: new Hadoop versions add commands, and a line that parses is
// not a bad record.
var hdfsCommands = map[string]string{
	"create": OpWrite, "append": OpWrite, "concat": OpWrite, "truncate": OpWrite,
	"createSymlink": OpWrite,
	"rename":        OpRename, "rename (options=[NONE])": OpRename, "rename (options=[OVERWRITE])": OpRename,
	"rename2":    OpRename,
	"open":       OpRead,
	"delete":     OpDelete,
	"listStatus": OpMeta, "getfileinfo": OpMeta, "mkdirs": OpMeta, "setPermission": OpMeta,
	"setOwner": OpMeta, "setReplication": OpMeta, "setTimes": OpMeta, "contentSummary": OpMeta,
	"listEncryptionZones": OpMeta, "getAclStatus": OpMeta, "setAcl": OpMeta, "modifyAclEntries": OpMeta,
	"removeAcl": OpMeta, "setXAttr": OpMeta, "getXAttrs": OpMeta, "listXAttrs": OpMeta,
	"removeXAttr": OpMeta, "checkAccess": OpMeta, "setStoragePolicy": OpMeta, "getStoragePolicy": OpMeta,
	"listCachePools": OpMeta, "listCacheDirectives": OpMeta, "createSnapshot": OpMeta,
	"deleteSnapshot": OpMeta, "renameSnapshot": OpMeta, "allowSnapshot": OpMeta, "disallowSnapshot": OpMeta,
	"listSnapshottableDirectory": OpMeta, "getEZForPath": OpMeta, "setQuota": OpMeta,
	"setSpaceQuota": OpMeta, "fsck": OpMeta, "recoverLease": OpMeta, "getDelegationToken": OpMeta,
	"renewDelegationToken": OpMeta, "cancelDelegationToken": OpMeta, "datanodeReport": OpMeta,
	"getErasureCodingPolicy": OpMeta, "setErasureCodingPolicy": OpMeta, "listCorruptFileBlocks": OpMeta,
	"getfilechecksum": OpMeta, "satisfyStoragePolicy": OpMeta, "unsetStoragePolicy": OpMeta,
}

// hdfsAudit reads the NameNode audit log, one operation per line:
//
//	2024-01-31 12:00:00,123 INFO FSNamesystem.audit: allowed=true	ugi=alice (auth:TOKEN) via hive (auth:KERBEROS)	ip=/10.0.0.1	cmd=open	src=/data/x	dst=null	perm=null	proto=rpc	callerContext=mr_attempt_1700000000000_0001_m_000000_0
//
// The prefix is log4j's, in the NameNode's local time without an offset
// (Options.Location, --tz). Fields are tab separated key=value pairs; ugi
// may hold spaces. User is the short name of the effective user: for a
// proxied request "alice (auth:TOKEN) via hive" that is alice, whose data it
// is; realm and host parts of Kerberos names are dropped. allowed=false
// lines are kept as OpDenied. callerContext (or trackingId) that names a
// YARN application sets Run and Attribution; Job is left to the slo stage,
// which knows runs.
type hdfsAudit struct {
	file    string
	lr      lineReader
	loc     *time.Location
	rec     dataset.Provenance
	perr    *ParseError
	err     error
	strs    *strtab.Table
	unknown map[string]int64
	stamp   []byte // scratch for a timestamp with a +hhmm offset
	denied  int64
}

func newHDFSAudit(in *Input, loc *time.Location) *hdfsAudit {
	if loc == nil {
		loc = time.UTC
	}
	return &hdfsAudit{file: in.Path, lr: newLineReader(in), loc: loc, strs: strtab.New(),
		unknown: map[string]int64{}}
}

func (r *hdfsAudit) Scan() bool {
	for {
		line, err := r.lr.next()
		if err == io.EOF {
			return false
		}
		r.perr = nil
		if err != nil && !errors.Is(err, errLineTooLong) {
			r.err = fmt.Errorf("%s: %w", r.file, err)
			return false
		}
		if err != nil {
			r.fail(line, 0, err)
			return true
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if col, err := r.parse(line); err != nil {
			r.fail(line, col, err)
		}
		return true
	}
}

func (r *hdfsAudit) fail(line []byte, col int, err error) {
	r.perr = &ParseError{File: r.file, Line: r.lr.line, Col: col, Err: err, Record: recordText(line)}
}

// Line is where the reader is: the current record's line (or row).
func (r *hdfsAudit) Line() int64 { return r.lr.line }

func (r *hdfsAudit) Record() (*dataset.Provenance, *ParseError) {
	if r.perr != nil {
		return nil, r.perr
	}
	return &r.rec, nil
}

func (r *hdfsAudit) Err() error { return r.err }

func (r *hdfsAudit) Notes() []string {
	var notes []string
	if r.denied > 0 {
		notes = append(notes, fmt.Sprintf("%d operations refused by the NameNode (allowed=false) kept as op %q", r.denied, OpDenied))
	}
	if len(r.unknown) > 0 {
		notes = append(notes, fmt.Sprintf("unknown commands kept as op %q: %s", OpOther, countList(r.unknown)))
	}
	return notes
}

// bstr views b as a string without copying, for the plain string columns
// (path, dst), which the dataset writer copies when a record is appended,
// so the view only has to outlive Record. The dictionary columns (op,
// user, cmd, run) keep the string they are given: those values are
// interned (r.strs) or constants, never views.
func bstr(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

var errNoAudit = errors.New("no audit fields (want allowed=... ugi=... cmd=... src=...)")

func (r *hdfsAudit) parse(line []byte) (int, error) {
	k := bytes.Index(line, []byte("allowed="))
	if k < 0 {
		return 0, errNoAudit
	}
	// "2024-01-31 12:00:00,123" leads the log4j prefix.
	if k < 19 {
		return 1, errors.New("no timestamp before the audit fields")
	}
	end := 19
	if k >= 23 && (line[19] == ',' || line[19] == '.') {
		end = 23
	}
	stamp := line[:end]
	// log4j's ISO8601 patterns may carry an offset: Z, +hh:mm or +hhmm.
	// Then it is honoured; without one the time is in --tz.
	if rest := line[end:k]; len(rest) > 0 {
		switch {
		case rest[0] == 'Z':
			stamp = line[:end+1]
		case (rest[0] == '+' || rest[0] == '-') && len(rest) >= 6 && rest[3] == ':':
			stamp = line[:end+6]
		case (rest[0] == '+' || rest[0] == '-') && len(rest) >= 5 && isDigits(rest[1:5]):
			r.stamp = append(append(append(append(r.stamp[:0], line[:end]...), rest[:3]...), ':'), rest[3:5]...)
			stamp = r.stamp
		}
	}
	ts, err := parseRFC3339(stamp, r.loc)
	if err != nil {
		return 1, err
	}
	var allowed, ugi, cmd, src, dst, ctx, track []byte
	var have uint8
	const (
		hAllowed = 1 << iota
		hUgi
		hIP
		hCmd
		hSrc
		hDst
		hPerm
	)
	rest := line[k:]
	for len(rest) > 0 {
		var f []byte
		f, rest, _ = bytes.Cut(rest, []byte{'\t'})
		key, val, ok := bytes.Cut(f, []byte{'='})
		if !ok {
			continue
		}
		switch string(key) {
		case "allowed":
			allowed, have = val, have|hAllowed
		case "ugi":
			ugi, have = val, have|hUgi
		case "ip":
			have |= hIP
		case "cmd":
			cmd, have = val, have|hCmd
		case "src":
			src, have = val, have|hSrc
		case "dst":
			dst, have = val, have|hDst
		case "perm":
			have |= hPerm
		case "callerContext":
			ctx = val
		case "trackingId":
			track = val
		}
	}
	// A line cut short loses its last fields; perm is the last one every
	// Hadoop version writes, so its absence marks a truncated line.
	if have != hAllowed|hUgi|hIP|hCmd|hSrc|hDst|hPerm {
		var miss []string
		for i, n := range []string{"allowed", "ugi", "ip", "cmd", "src", "dst", "perm"} {
			if have&(1<<i) == 0 {
				miss = append(miss, n)
			}
		}
		return k + 1, fmt.Errorf("truncated or incomplete audit line: missing %v", miss)
	}
	if len(cmd) == 0 || len(ugi) == 0 {
		return k + 1, errors.New("empty cmd or ugi")
	}
	op, known := hdfsCommands[string(cmd)]
	if !known {
		// "rename (options=[...])" variants beyond the listed ones.
		if bytes.HasPrefix(cmd, []byte("rename")) {
			op = OpRename
		} else {
			op = OpOther
			if len(r.unknown) < 1000 {
				r.unknown[string(cmd)]++
			}
		}
	}
	switch string(allowed) {
	case "true":
	case "false":
		op = OpDenied
		r.denied++
	default:
		return k + 1, fmt.Errorf("allowed=%q: want true or false", allowed)
	}
	if string(dst) == "null" {
		dst = nil
	}
	_, cmdS := r.strs.Bytes(cmd)
	_, userS := r.strs.Bytes(shortUser(ugi))
	r.rec = dataset.Provenance{TimeMs: ts, Op: op, Path: bstr(src), Dst: bstr(dst), User: userS, Cmd: cmdS}
	c := ctx
	if len(c) == 0 || string(c) == "null" {
		c = track
	}
	if len(c) > 0 && string(c) != "null" {
		if app := yarnid.AppID(bstr(c)); app != "" {
			r.rec.Run = app
			if len(ctx) > 0 && string(ctx) != "null" {
				r.rec.Attribution = "callerContext"
			} else {
				r.rec.Attribution = "trackingId"
			}
		}
	}
	return 0, nil
}

// shortUser returns the effective user of a ugi value: the first name
// ("alice" of "alice (auth:TOKEN) via hive (auth:KERBEROS)"), without
// Kerberos host or realm ("hdfs" of "hdfs/host@REALM").
func shortUser(ugi []byte) []byte {
	u := ugi
	if i := bytes.IndexByte(u, ' '); i >= 0 {
		u = u[:i]
	}
	if i := bytes.IndexAny(u, "/@"); i > 0 {
		u = u[:i]
	}
	return u
}

// countList formats counts as "a (3), b (1)", largest first, then by name.
func countList(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	for i, k := range keys {
		if i == 20 {
			fmt.Fprintf(&b, ", ... (%d more)", len(keys)-20)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q (%d)", k, m[k])
	}
	return b.String()
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
