package bytesize

import "testing"

func TestString(t *testing.T) {
	for n, want := range map[uint64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		1<<20 - 1: "1024.0 KiB", 1 << 20: "1.0 MiB", 12 << 20: "12.0 MiB",
		1<<30 - 1: "1024.0 MiB", 1 << 30: "1.0 GiB", 5 << 30: "5.0 GiB",
	} {
		if got := String(n); got != want {
			t.Errorf("String(%d) = %q, want %q", n, got, want)
		}
	}
}
