package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/savefile"
)

// hostileHPROF is a 14 KB Android HPROF whose NODATA arrays claim 512 MiB.
func hostileHPROF() []byte {
	var body []byte
	for i := 0; i < 1024; i++ {
		body = append(body, 0xC3)
		body = binary.BigEndian.AppendUint32(body, uint32(0x1000+i))
		body = binary.BigEndian.AppendUint32(body, 0)
		body = binary.BigEndian.AppendUint32(body, 65536)
		body = append(body, byte(hprof.TypeLong))
	}
	b := append([]byte(hprof.VersionAndroid), 0)
	b = binary.BigEndian.AppendUint32(b, 4)
	b = binary.BigEndian.AppendUint64(b, 0)
	b = append(b, byte(hprof.TagHeapDumpSegment))
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(len(body)))
	return append(b, body...)
}

// Issue 16 item 5: the hprof command converts straight into its file, with
// the output bounded; a hostile dump leaves nothing behind.
func TestWriteHPROFStreamsAndBounds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.hprof")
	_, err := savefile.SaveBytes(context.Background(), path, hostileHPROF(), savefile.HPROF(false, savefile.DefaultHPROFRatio, nil))
	if !errors.Is(err, hprof.ErrOutputTooLarge) {
		t.Fatalf("hostile dump: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
	// A real dump converts as in memory, byte for byte.
	good, err := hprof.Synth{Seed: 7, Classes: 4, Instances: 30, Arrays: 12, MaxArrayLength: 40, NoData: true}.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want, err := hprof.ToStandard(good)
	if err != nil {
		t.Fatal(err)
	}
	var sum *hprof.Summary
	_, err = savefile.SaveBytes(context.Background(), path, good, savefile.HPROF(false, savefile.DefaultHPROFRatio, &sum))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) || sum.Size != int64(len(want)) {
		t.Fatalf("file %d bytes (summary %d), in-memory conversion %d", len(got), sum.Size, len(want))
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("directory holds %v", ents)
	}
}
