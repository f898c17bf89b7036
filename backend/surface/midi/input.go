package midi

// Message is one decoded channel-voice message from a device. SysEx,
// system common and real-time messages are consumed by the parser and never
// returned: the grid surface only reacts to note-on and control change.
type Message struct {
	Status byte // 0x80…0xEF
	Data1  byte
	Data2  byte // 0 for one-data-byte messages
}

// InputParser turns a raw MIDI byte stream (as a driver delivers it: whole
// messages, or arbitrary chunks of a serial stream) into channel messages.
// It implements running status, skips SysEx of any length, lets real-time
// bytes (clock, active sensing, …) interleave anywhere, and drops stray
// data bytes. It never fails and keeps at most two pending data bytes.
// The zero value is ready to use.
type InputParser struct {
	running byte // current channel status, 0 = none
	inSysEx bool
	data    [2]byte
	n       int
}

// dataLen is the number of data bytes of a channel status.
func dataLen(status byte) int {
	switch status & 0xF0 {
	case 0xC0, 0xD0:
		return 1
	}
	return 2
}

// Feed parses chunk and returns the complete channel messages it finished,
// in order.
func (p *InputParser) Feed(chunk []byte) []Message {
	var out []Message
	for _, b := range chunk {
		switch {
		case b >= 0xF8:
			// Real-time: may appear anywhere, even inside SysEx; ignored.
			continue
		case b == 0xF0:
			p.inSysEx, p.running, p.n = true, 0, 0
			continue
		case b == 0xF7:
			p.inSysEx, p.running, p.n = false, 0, 0
			continue
		case b >= 0xF1:
			// System common cancels running status; its data bytes are
			// then stray and dropped.
			p.inSysEx, p.running, p.n = false, 0, 0
			continue
		case b >= 0x80:
			p.inSysEx, p.running, p.n = false, b, 0
			continue
		}
		// Data byte.
		if p.inSysEx || p.running == 0 {
			continue
		}
		p.data[p.n] = b
		p.n++
		if p.n == dataLen(p.running) {
			m := Message{Status: p.running, Data1: p.data[0]}
			if p.n == 2 {
				m.Data2 = p.data[1]
			}
			out = append(out, m)
			p.n = 0
		}
	}
	return out
}

// ParseInput parses one self-contained chunk of MIDI bytes.
func ParseInput(chunk []byte) []Message {
	var p InputParser
	return p.Feed(chunk)
}
