// Package qrtest reads QR codes back in tests with an independent decoder
// (gozxing, a port of ZXing).
//
// It decodes an image as a pure barcode: the code alone on a light page,
// which is exactly what Lets draws (PNG, SVG and terminal renderings all
// are). gozxing's general finder-pattern search misjudges the size of about
// one valid code in two hundred ("dimension = 35") and would make tests of
// random pairing secrets fail by chance; the pure-barcode reader locates
// the symbol from its corners instead, still decodes every module and
// checks the error correction, so a wrong code still fails.
package qrtest

import (
	"fmt"
	"image"

	"github.com/makiuchi-d/gozxing"
	gozxingqr "github.com/makiuchi-d/gozxing/qrcode"
)

// Scan decodes the QR code in img and returns its text.
func Scan(img image.Image) (string, error) {
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		return "", fmt.Errorf("qrtest: read the image: %w", err)
	}
	res, err := gozxingqr.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]interface{}{
		gozxing.DecodeHintType_PURE_BARCODE: true,
	})
	if err != nil {
		return "", fmt.Errorf("qrtest: the code does not scan: %w", err)
	}
	return res.GetText(), nil
}
