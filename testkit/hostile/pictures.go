package hostile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
)

// Pictures that claim more pixels than their bytes (issue 37 #4, #6): a
// view's capture or a Bitmap's dumpData is a claim, and a small file can
// make a decoder allocate gigabytes.

// PNG is a valid PNG of w×h pixels, all zero, at the given bit depth (8 or
// 16) and colour type (0 gray, 2 RGB, 6 RGBA), interlaced or not. Its
// zeros deflate about a thousand to one: 8192² at 16-bit RGBA (512 MiB
// decoded) is half a megabyte. With rows < h only the first rows are
// written, so the file is cut short in its data: the header still claims
// w×h (a decoder that trusts it allocates the whole image first).
func PNG(w, h int, depth, ctype byte, interlaced bool, rows int) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = depth, ctype
	if interlaced {
		ihdr[12] = 1
	}
	pngChunk(&b, "IHDR", ihdr)
	bpp := map[byte]int{0: 1, 2: 3, 6: 4}[ctype] * int(depth) / 8
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	// Adam7's passes (x0, y0, dx, dy), or one pass of every pixel.
	passes := [][4]int{{0, 0, 1, 1}}
	if interlaced {
		passes = [][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}}
	}
	written, limit := 0, rows
	if rows >= h {
		limit = int(^uint(0) >> 1)
	}
	for _, p := range passes {
		pw, ph := (w-p[0]+p[2]-1)/p[2], (h-p[1]+p[3]-1)/p[3]
		if pw <= 0 || ph <= 0 {
			continue
		}
		row := make([]byte, 1+pw*bpp) // filter byte 0, then zeros
		for range ph {
			if written >= limit {
				break
			}
			zw.Write(row)
			written++
		}
	}
	zw.Close()
	pngChunk(&b, "IDAT", z.Bytes())
	if rows >= h {
		pngChunk(&b, "IEND", nil)
	}
	return b.Bytes()
}

func pngChunk(b *bytes.Buffer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	b.Write(n[:])
	c := crc32.NewIEEE()
	c.Write([]byte(typ))
	c.Write(data)
	b.WriteString(typ)
	b.Write(data)
	binary.BigEndian.PutUint32(n[:], c.Sum32())
	b.Write(n[:])
}

// ProgressiveJPEG is a valid progressive (SOF2) 3-component 4:4:4 JPEG of
// w×h grey pixels: one DC scan whose every difference is the 1-bit code of
// category 0, so 8192² is 400 KB while a decoder keeps every block's
// coefficients (12 bytes a pixel) beside the image. With full false the
// scan's data stops after a few bytes (the decoder has allocated by then).
func ProgressiveJPEG(w, h int, full bool) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xff, 0xd8})
	seg := func(m byte, body []byte) {
		b.Write([]byte{0xff, m, byte((len(body) + 2) >> 8), byte(len(body) + 2)})
		b.Write(body)
	}
	dqt := append([]byte{0}, bytes.Repeat([]byte{1}, 64)...)
	seg(0xdb, dqt)
	sof := []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0}
	seg(0xc2, sof)
	// DC table 0: one code of length 1 for category 0.
	dht := append([]byte{0x00, 1}, make([]byte, 15)...)
	dht = append(dht, 0)
	seg(0xc4, dht)
	seg(0xda, []byte{3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 0, 0})
	blocks := ((w + 7) / 8) * ((h + 7) / 8) * 3
	n := (blocks + 7) / 8 // a zero bit per block
	if !full {
		n = min(n, 16)
	}
	b.Write(make([]byte, n))
	if full {
		b.Write([]byte{0xff, 0xd9})
	}
	return b.Bytes()
}
