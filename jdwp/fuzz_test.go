package jdwp

import (
	"bytes"
	"testing"
)

func FuzzDecodePacket(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x0b\x00\x00\x00\x05\x00\x01\x07"))
	f.Add([]byte("\x00\x00\x00\x0b\x40\x00\x00\x01\x80\x00\x63"))
	f.Add([]byte("\x00\x00\x00\x17\x40\x00\x00\x01\x00\xc7\x01HELO\x00\x00\x00\x04\x00\x00\x00\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(b, 1<<16)
		if err != nil {
			return
		}
		if !bytes.Equal(p.Marshal(), b) {
			t.Fatalf("re-encoding differs: % x vs % x", p.Marshal(), b)
		}
	})
}

// FuzzReadPacketStream reads packets back to back from arbitrary bytes, as
// the Conn reader does: it must end in an error, never a panic or a hang, and
// every packet it returns must re-encode to the bytes it consumed.
func FuzzReadPacketStream(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x0b\x00\x00\x00\x05\x00\x01\x07\x00\x00\x00\x0b\x00\x00\x00\x06\x80\x00\x00"))
	f.Add([]byte("\xff\xff\xff\xff\x00\x00\x00\x01\x00\x01\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		consumed := 0
		for {
			p, err := ReadPacket(r, 1<<16)
			if err != nil {
				return
			}
			enc := p.Marshal()
			if !bytes.Equal(enc, b[consumed:consumed+len(enc)]) {
				t.Fatalf("packet at %d re-encodes differently", consumed)
			}
			consumed += len(enc)
		}
	})
}

func FuzzStandardReplies(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x05Hello\x00\x00\x00\x01\x00\x00\x00\x06\x00\x00\x00\x011\x00\x00\x00\x00"), 8)
	f.Add(AppendIDSizes(nil, IDSizes{8, 8, 8, 8, 8}), 4)
	f.Add(AppendIDList(nil, 8, []uint64{1, 2}), 8)
	f.Fuzz(func(t *testing.T, b []byte, size int) {
		if v, err := DecodeVersion(b); err == nil {
			if w, err := DecodeVersion(AppendVersion(nil, v)); err != nil || w != v {
				t.Fatalf("version round trip: %+v vs %+v (%v)", v, w, err)
			}
		}
		if s, err := DecodeIDSizes(b); err == nil && !s.Valid() {
			t.Fatalf("invalid sizes accepted: %+v", s)
		}
		if ids, err := DecodeIDList(b, size); err == nil {
			if enc := AppendIDList(nil, size, ids); !bytes.Equal(enc, b[:len(enc)]) {
				t.Fatal("id list re-encodes differently")
			}
		}
		_, _ = DecodeThreadStatus(b)
		_, _ = DecodeString(b)
	})
}
