package skyline

// #cgo pkg-config: clp
// #cgo CXXFLAGS: -std=c++11
// #include "clpwarm.h"
import "C"

import (
	"runtime"
	"unsafe"

	"github.com/lanl/clp"
)

// clpModel returns the ClpSimplex behind a lanl/clp Simplex. lanl/clp v1.2.0
// (pinned in go.mod) keeps it as the struct's first field; TestCLPModelPointer
// checks this against the row count CLP reports, so an upgrade that moves it
// fails a test instead of corrupting memory.
func clpModel(s *clp.Simplex) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(s))
}

// clpRows is the number of rows of the loaded model, read through the shim.
func clpRows(s *clp.Simplex) int {
	n := int(C.wlprof_clp_rows(clpModel(s)))
	runtime.KeepAlive(s)
	return n
}

// addRows appends rows, each a sparse {column, value} list with bounds, to a
// loaded model without discarding its basis.
func addRows(s *clp.Simplex, rows [][]clp.Nonzero, bounds []clp.Bounds) {
	if len(rows) == 0 {
		return
	}
	if len(rows) != len(bounds) {
		panic("skyline: addRows: rows and bounds differ in length")
	}
	lo := make([]C.double, len(rows))
	up := make([]C.double, len(rows))
	starts := make([]C.int, len(rows)+1)
	var cols []C.int
	var vals []C.double
	for r, row := range rows {
		lo[r], up[r] = C.double(bounds[r].Lower), C.double(bounds[r].Upper)
		for _, nz := range row {
			cols = append(cols, C.int(nz.Index))
			vals = append(vals, C.double(nz.Value))
		}
		starts[r+1] = C.int(len(cols))
	}
	C.wlprof_clp_add_rows(clpModel(s), C.int(len(rows)), &lo[0], &up[0], &starts[0], &cols[0], &vals[0])
	runtime.KeepAlive(s)
}

// CLP's ClpSimplex::Status values a basis is given in.
const (
	clpBasic        = 1
	clpAtUpperBound = 2
	clpAtLowerBound = 3
)

// setStatus gives a loaded model its starting basis: one status per column,
// then one per row.
func setStatus(s *clp.Simplex, status []byte) {
	rows, cols := s.Dims()
	if len(status) != rows+cols {
		panic("skyline: setStatus: want one status per column and row")
	}
	C.wlprof_clp_set_status(clpModel(s), (*C.uchar)(unsafe.Pointer(&status[0])))
	runtime.KeepAlive(s)
}

// getStatus returns the basis of a solved model: one status per column,
// then one per row.
func getStatus(s *clp.Simplex) []byte {
	rows, cols := s.Dims()
	st := make([]byte, rows+cols)
	C.wlprof_clp_get_status(clpModel(s), (*C.uchar)(unsafe.Pointer(&st[0])))
	runtime.KeepAlive(s)
	return st
}
