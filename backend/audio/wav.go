package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// SampleRate is the rate of every sound this package makes (Hz).
const SampleRate = 22050

// wavHeaderSize is the size of the canonical 44-byte RIFF/WAVE header
// (RIFF chunk, "fmt " chunk of 16 bytes, "data" chunk header).
const wavHeaderSize = 44

// ErrWAV marks parameters that cannot be written as a WAV file.
var ErrWAV = errors.New("cannot encode WAV")

// EncodeWAV writes interleaved 16-bit PCM samples as a canonical WAV file:
// "RIFF" size "WAVE", a 16-byte "fmt " chunk (format 1 = PCM), and one
// "data" chunk, all little-endian. len(samples) must be a multiple of
// channels.
func EncodeWAV(samples []int16, rate, channels int) ([]byte, error) {
	if channels < 1 || channels > 8 {
		return nil, fmt.Errorf("%w: %d channels (use 1 to 8)", ErrWAV, channels)
	}
	if rate < 1 || rate > 384000 {
		return nil, fmt.Errorf("%w: sample rate %d Hz (use 1 to 384000)", ErrWAV, rate)
	}
	if len(samples)%channels != 0 {
		return nil, fmt.Errorf("%w: %d samples do not fill whole frames of %d channels", ErrWAV, len(samples), channels)
	}
	dataSize := 2 * len(samples)
	if uint64(dataSize)+wavHeaderSize-8 > 0xffffffff {
		return nil, fmt.Errorf("%w: %d bytes of audio is over the 4 GiB a WAV file can hold", ErrWAV, dataSize)
	}
	b := make([]byte, wavHeaderSize+dataSize)
	le := binary.LittleEndian
	copy(b[0:4], "RIFF")
	le.PutUint32(b[4:8], uint32(wavHeaderSize-8+dataSize))
	copy(b[8:12], "WAVE")
	copy(b[12:16], "fmt ")
	le.PutUint32(b[16:20], 16)                      // fmt chunk size
	le.PutUint16(b[20:22], 1)                       // PCM
	le.PutUint16(b[22:24], uint16(channels))        // channels
	le.PutUint32(b[24:28], uint32(rate))            // sample rate
	le.PutUint32(b[28:32], uint32(rate*channels*2)) // byte rate
	le.PutUint16(b[32:34], uint16(channels*2))      // block align
	le.PutUint16(b[34:36], 16)                      // bits per sample
	copy(b[36:40], "data")
	le.PutUint32(b[40:44], uint32(dataSize))
	for i, s := range samples {
		le.PutUint16(b[wavHeaderSize+2*i:], uint16(s))
	}
	return b, nil
}
