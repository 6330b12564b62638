package trace

// LEB128 as ART reads and writes it (libartbase/base/leb128.h), for format V2.

// uleb128 decodes an unsigned LEB128 value of at most 64 bits. k is the
// number of bytes read, 0 when b ends inside the value, -1 when it is longer
// than 10 bytes.
func uleb128(b []byte) (v uint64, k int) {
	var shift uint
	for i, c := range b {
		if i == 10 {
			return 0, -1
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i + 1
		}
		shift += 7
	}
	if len(b) >= 10 {
		return 0, -1
	}
	return 0, 0
}

// sleb128 decodes a signed LEB128 value of at most 64 bits (as ART's
// EncodeSignedLeb128 writes them), with uleb128's k.
func sleb128(b []byte) (v int64, k int) {
	var shift uint
	var u uint64
	for i, c := range b {
		if i == 10 {
			return 0, -1
		}
		u |= uint64(c&0x7f) << shift
		shift += 7
		if c < 0x80 {
			if shift < 64 && c&0x40 != 0 {
				u |= ^uint64(0) << shift
			}
			return int64(u), i + 1
		}
	}
	if len(b) >= 10 {
		return 0, -1
	}
	return 0, 0
}

// appendUleb128 and appendSleb128 encode as ART's EncodeUnsignedLeb128 and
// EncodeSignedLeb128 (libartbase/base/leb128.h) do.
func appendUleb128(dst []byte, v uint64) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

func appendSleb128(dst []byte, v int64) []byte {
	extra := uint64(v^(v>>63)) >> 6
	out := byte(v & 0x7f)
	for extra != 0 {
		dst = append(dst, out|0x80)
		v >>= 7
		out = byte(v & 0x7f)
		extra >>= 7
	}
	return append(dst, out)
}
