package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// wavInfo is what a test reads back from a canonical WAV file.
type wavInfo struct {
	channels, rate, bits int
	samples              []int16
}

// parseWAV checks every field of the canonical 44-byte header and returns
// the samples. It is test-only: the product never decodes WAV files.
func parseWAV(t *testing.T, b []byte) wavInfo {
	t.Helper()
	le := binary.LittleEndian
	if len(b) < 44 {
		t.Fatalf("WAV of %d bytes is shorter than its header", len(b))
	}
	if string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" || string(b[12:16]) != "fmt " || string(b[36:40]) != "data" {
		t.Fatalf("bad chunk ids: %q %q %q %q", b[0:4], b[8:12], b[12:16], b[36:40])
	}
	if got := le.Uint32(b[4:8]); int(got) != len(b)-8 {
		t.Fatalf("RIFF size %d, want %d", got, len(b)-8)
	}
	if le.Uint32(b[16:20]) != 16 || le.Uint16(b[20:22]) != 1 {
		t.Fatalf("fmt chunk is not 16-byte PCM")
	}
	info := wavInfo{channels: int(le.Uint16(b[22:24])), rate: int(le.Uint32(b[24:28])), bits: int(le.Uint16(b[34:36]))}
	if int(le.Uint32(b[28:32])) != info.rate*info.channels*2 || int(le.Uint16(b[32:34])) != info.channels*2 {
		t.Fatalf("byte rate / block align do not match %d Hz × %d channels × 16 bit", info.rate, info.channels)
	}
	if n := int(le.Uint32(b[40:44])); n != len(b)-44 || n%(2*info.channels) != 0 {
		t.Fatalf("data size %d, file has %d bytes of data", n, len(b)-44)
	}
	info.samples = make([]int16, (len(b)-44)/2)
	for i := range info.samples {
		info.samples[i] = int16(le.Uint16(b[44+2*i:]))
	}
	return info
}

func TestEncodeWAVHeaderAndSamples(t *testing.T) {
	in := []int16{0, 1, -1, 32767, -32768, 1234}
	for _, ch := range []int{1, 2} {
		b, err := EncodeWAV(in, 22050, ch)
		if err != nil {
			t.Fatal(err)
		}
		info := parseWAV(t, b)
		if info.channels != ch || info.rate != 22050 || info.bits != 16 {
			t.Fatalf("got %+v", info)
		}
		for i := range in {
			if info.samples[i] != in[i] {
				t.Fatalf("sample %d = %d, want %d", i, info.samples[i], in[i])
			}
		}
	}
	// Exact bytes of a tiny file (mono, 8000 Hz, samples 1 and -2).
	b, err := EncodeWAV([]int16{1, -2}, 8000, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte("RIFF\x28\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x04\x00\x00\x00\x01\x00\xfe\xff")
	if !bytes.Equal(b, want) {
		t.Fatalf("bytes\n got %q\nwant %q", b, want)
	}
	// Empty is a valid (silent) file.
	if b, err := EncodeWAV(nil, SampleRate, 1); err != nil || len(b) != 44 {
		t.Fatalf("empty: %d bytes, %v", len(b), err)
	}
}

func TestEncodeWAVRejects(t *testing.T) {
	for _, c := range []struct {
		n, rate, ch int
	}{{2, 22050, 0}, {2, 22050, 9}, {2, 0, 1}, {3, 22050, 2}, {2, 400000, 1}} {
		if _, err := EncodeWAV(make([]int16, c.n), c.rate, c.ch); !errors.Is(err, ErrWAV) {
			t.Errorf("%+v: err %v, want ErrWAV", c, err)
		}
	}
}
