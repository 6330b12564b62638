package adbd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Transport protocol constants (spec/adb.md §2.1, §2.3).
const (
	cmdSYNC = 0x434E5953
	cmdCNXN = 0x4E584E43
	cmdAUTH = 0x48545541
	cmdOPEN = 0x4E45504F
	cmdOKAY = 0x59414B4F
	cmdCLSE = 0x45534C43
	cmdWRTE = 0x45545257

	// versionMin is the original protocol; versionSkipChecksum (adb
	// 1.0.40+) lets both sides put 0 in data_check.
	versionMin          = 0x01000000
	versionSkipChecksum = 0x01000001

	// maxPayloadV1 is the payload limit of old peers and of CNXN/AUTH.
	maxPayloadV1 = 4096
	// maxPayloadLimit is adb 29's MAX_PAYLOAD; nothing larger is accepted.
	maxPayloadLimit = 1 << 20

	headerSize = 24
)

// errBadMagic and errTooLong make a connection unusable: the byte stream can
// no longer be trusted to be aligned on headers.
var (
	errBadMagic = errors.New("magic does not match the command")
	errTooLong  = errors.New("payload longer than the negotiated maximum")
)

// header is the 24-byte little-endian message header.
type header struct {
	Command, Arg0, Arg1, Length, Check, Magic uint32
}

// packet is a header's command and arguments with its payload.
type packet struct {
	Command, Arg0, Arg1 uint32
	Data                []byte
}

// decodeHeader parses and validates a header, as the adb server does
// (transport.cpp check_header): the magic must be the complement of the
// command and the length within maxPayload. The checksum is not verified
// (spec §2.5: a receiver never needs to).
func decodeHeader(b []byte, maxPayload uint32) (header, error) {
	if len(b) < headerSize {
		return header{}, fmt.Errorf("header of %d bytes: %w", len(b), io.ErrUnexpectedEOF)
	}
	le := binary.LittleEndian
	h := header{
		Command: le.Uint32(b[0:]),
		Arg0:    le.Uint32(b[4:]),
		Arg1:    le.Uint32(b[8:]),
		Length:  le.Uint32(b[12:]),
		Check:   le.Uint32(b[16:]),
		Magic:   le.Uint32(b[20:]),
	}
	if h.Magic != h.Command^0xFFFFFFFF {
		return h, fmt.Errorf("command %#08x magic %#08x: %w", h.Command, h.Magic, errBadMagic)
	}
	if h.Length > maxPayload {
		return h, fmt.Errorf("%s with %d bytes (maximum %d): %w", commandName(h.Command), h.Length, maxPayload, errTooLong)
	}
	return h, nil
}

// readPacket reads one message. The payload buffer is allocated only after
// the header passed validation, so its size is bounded by maxPayload.
func readPacket(r io.Reader, maxPayload uint32) (packet, error) {
	var hb [headerSize]byte
	if _, err := io.ReadFull(r, hb[:]); err != nil {
		return packet{}, err
	}
	h, err := decodeHeader(hb[:], maxPayload)
	if err != nil {
		return packet{}, err
	}
	p := packet{Command: h.Command, Arg0: h.Arg0, Arg1: h.Arg1}
	if h.Length > 0 {
		p.Data = make([]byte, h.Length)
		if _, err := io.ReadFull(r, p.Data); err != nil {
			return packet{}, fmt.Errorf("%s payload: %w", commandName(h.Command), noEOF(err))
		}
	}
	return p, nil
}

// checksum is the unsigned byte sum of the payload (adb.cpp
// calculate_apacket_checksum; "crc32" in protocol.txt).
func checksum(b []byte) uint32 {
	var s uint32
	for _, c := range b {
		s += uint32(c)
	}
	return s
}

// appendPacket encodes p. The byte sum is always filled in: it is correct
// for every protocol version, and peers of 0x01000001 ignore it (spec §2.5).
func appendPacket(b []byte, p packet) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, p.Command)
	b = le.AppendUint32(b, p.Arg0)
	b = le.AppendUint32(b, p.Arg1)
	b = le.AppendUint32(b, uint32(len(p.Data)))
	b = le.AppendUint32(b, checksum(p.Data))
	b = le.AppendUint32(b, p.Command^0xFFFFFFFF)
	return append(b, p.Data...)
}

// commandName is the four letters of a known command, or its hex value.
func commandName(c uint32) string {
	switch c {
	case cmdSYNC, cmdCNXN, cmdAUTH, cmdOPEN, cmdOKAY, cmdCLSE, cmdWRTE:
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], c)
		return string(b[:])
	}
	return fmt.Sprintf("%#08x", c)
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
