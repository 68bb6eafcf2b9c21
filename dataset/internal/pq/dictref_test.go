package pq

// DictIDs is the reference decoder of a data page's dictionary ids (a bit
// width byte, then hybrid runs) into dst, each below size: the readers use
// DecodeIDs and DecodeDictDoubles, and the tests and fuzz targets check
// them against this one.
func DictIDs(vals []byte, dst []int32, size int) bool {
	if len(dst) == 0 {
		return true
	}
	if len(vals) < 1 || !unpackHybridRef(vals[1:], int(vals[0]), dst) {
		return false
	}
	return int(maxInt32(dst)) < size
}

// maxInt32 is the largest of v (0 when v is empty or all negative).
func maxInt32(v []int32) int32 {
	var hi int32
	for _, id := range v {
		hi = max(hi, id)
	}
	return hi
}
