package host

import (
	"bytes"
	"encoding/binary"
	"image"
	_ "image/gif" // DecodeConfig for GIF uploads
	_ "image/jpeg"
	_ "image/png"
	"io"

	"github.com/lets-app/lets/backend/lip"
)

// imageKind is what the bytes of an upload are, found by looking at them
// (never from the client's Content-Type).
type imageKind struct {
	Mime string
	Ext  string
}

// sniffImage recognises PNG, JPEG, GIF and WebP by their signatures and
// reads their pixel size. ok is false for anything else.
func sniffImage(head []byte, all io.Reader) (kind imageKind, w, h int, ok bool) {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		kind = imageKind{"image/png", ".png"}
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		kind = imageKind{"image/jpeg", ".jpg"}
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		kind = imageKind{"image/gif", ".gif"}
	case len(head) >= 12 && bytes.Equal(head[:4], []byte("RIFF")) && bytes.Equal(head[8:12], []byte("WEBP")):
		kind = imageKind{"image/webp", ".webp"}
		w, h, ok = webpSize(head)
		return kind, w, h, ok && w > 0 && h > 0
	default:
		return imageKind{}, 0, 0, false
	}
	cfg, _, err := image.DecodeConfig(all)
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return imageKind{}, 0, 0, false
	}
	return kind, cfg.Width, cfg.Height, true
}

// Pixel limits of an upload (issue #10: decompression bombs). A few bytes
// can declare an image that takes gigabytes to decode, in the shell, in
// the browser and in whatever tool Claude reads it with; real photos and
// screenshots stay well inside these.
const (
	maxUploadPixels = 50_000_000 // 50 megapixels
	maxUploadSide   = 20_000
)

// checkImageSize refuses an image whose declared size is too large to
// decode safely, saying what the limits are.
func checkImageSize(w, h int) *lip.Error {
	if w > maxUploadSide || h > maxUploadSide || int64(w)*int64(h) > maxUploadPixels {
		return lip.Errorf(lip.CodeTooLarge, "the image says it is %d×%d pixels; Lets takes images of at most %d megapixels and %d pixels a side, so make it smaller and try again",
			w, h, maxUploadPixels/1_000_000, maxUploadSide)
	}
	return nil
}

// webpSize reads the canvas size of a WebP file (lossy VP8, lossless VP8L
// or extended VP8X).
func webpSize(b []byte) (int, int, bool) {
	if len(b) < 30 {
		return 0, 0, false
	}
	chunk := string(b[12:16])
	p := b[20:]
	switch chunk {
	case "VP8 ":
		// frame tag (3 bytes), start code 9d 01 2a, then 14-bit sizes.
		if len(p) < 10 || p[3] != 0x9d || p[4] != 0x01 || p[5] != 0x2a {
			return 0, 0, false
		}
		w := int(binary.LittleEndian.Uint16(p[6:8]) & 0x3fff)
		h := int(binary.LittleEndian.Uint16(p[8:10]) & 0x3fff)
		return w, h, w > 0 && h > 0
	case "VP8L":
		if len(p) < 5 || p[0] != 0x2f {
			return 0, 0, false
		}
		bits := binary.LittleEndian.Uint32(p[1:5])
		w := int(bits&0x3fff) + 1
		h := int((bits>>14)&0x3fff) + 1
		return w, h, true
	case "VP8X":
		if len(p) < 10 {
			return 0, 0, false
		}
		w := int(uint32(p[4])|uint32(p[5])<<8|uint32(p[6])<<16) + 1
		h := int(uint32(p[7])|uint32(p[8])<<8|uint32(p[9])<<16) + 1
		return w, h, true
	}
	return 0, 0, false
}
