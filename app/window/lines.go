package window

import (
	"bufio"
	"errors"
	"io"
)

// newLineReader returns a function that yields one line at a time; a line
// longer than maxReportLine is dropped whole instead of filling memory.
func newLineReader(r io.Reader) func() ([]byte, error) {
	br := bufio.NewReaderSize(r, maxReportLine)
	return func() ([]byte, error) {
		for {
			line, err := br.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				// Skip the rest of an overlong line.
				for errors.Is(err, bufio.ErrBufferFull) {
					_, err = br.ReadSlice('\n')
				}
				if err != nil {
					return nil, err
				}
				continue
			}
			if len(line) == 0 && err != nil {
				return nil, err
			}
			out := make([]byte, len(line))
			copy(out, line)
			return out, err
		}
	}
}
