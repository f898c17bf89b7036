package web

import (
	"net/url"
	"strings"

	"github.com/lets-app/lets/backend/surface/web/qr"
)

// QRDataURI draws text as a QR code (error correction level M, module size
// 5 px, quiet zone of 2 modules) and returns it as a
// data:image/svg+xml;charset=utf-8 URI with the SVG percent-encoded and
// double quotes turned into single quotes (§6.5).
func QRDataURI(text string) (string, error) {
	code, err := qr.Encode([]byte(text), qr.M)
	if err != nil {
		return "", err
	}
	svg := strings.ReplaceAll(code.SVG(5, 2), `"`, `'`)
	return "data:image/svg+xml;charset=utf-8," + strings.ReplaceAll(url.PathEscape(svg), "+", "%2B"), nil
}
