package web

import (
	"github.com/lets-app/lets/backend/qr"
)

// qrModulePixels is the module size of the pairing QR code (§6.5: 5 px,
// quiet zone of 2 modules, error correction level M).
const qrModulePixels = 5

// QRDataURI draws text as a QR code and returns it as a
// data:image/svg+xml;charset=utf-8 URI (§6.5), what the pairing message's
// qr_data_uri carries.
func QRDataURI(text string) (string, error) {
	code, err := qr.Encode(text)
	if err != nil {
		return "", err
	}
	return code.SVGDataURI(qrModulePixels), nil
}
