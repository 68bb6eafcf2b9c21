package profile

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// WriteFile writes the profile to path atomically (temporary file, fsync,
// rename): a reader sees the old file or the new one, never a mix.
func (j *Job) WriteFile(path string) error {
	b, err := j.Marshal()
	if err != nil {
		return err
	}
	return writeAtomic(path, b, 0o644)
}

// WriteFile is Job.WriteFile for tenants.json.
func (t *Tenants) WriteFile(path string) error {
	b, err := t.Marshal()
	if err != nil {
		return err
	}
	return writeAtomic(path, b, 0o644)
}

// maxName keeps file names under the 255 bytes most file systems allow,
// with room for ".json" and a temporary suffix.
const maxName = 200

// FileName is the file name of a job's profile, "<job>.json" with the job
// id made safe: bytes other than ASCII letters, digits, '-', '_' and '.'
// are written %XX (so distinct jobs never share a file, and no id can name
// a path outside the directory), a leading '.' too; ids longer than 200
// bytes are cut and end with a hash of the whole id.
func FileName(job string) string {
	var b strings.Builder
	for i := 0; i < len(job); i++ {
		c := job[i]
		safe := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' && i > 0
		if safe {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
	}
	name := b.String()
	if name == "" {
		name = "%" // no encoded id is a lone %
	}
	if len(name) > maxName {
		sum := sha256.Sum256([]byte(job))
		name = name[:maxName-17] + "~" + hex.EncodeToString(sum[:8])
	}
	return name + ".json"
}
