package chatdriver

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// maxImageBytes bounds one attached image (the Messages API takes up to
// 5 MB per image).
const maxImageBytes = 5 << 20

// imageTypes are the media types the Messages API accepts.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// AttachmentError says why an attached image could not go to Claude.
type AttachmentError struct {
	Path   string
	Reason string
}

func (e *AttachmentError) Error() string {
	return fmt.Sprintf("the image %s cannot be sent to Claude: %s", filepath.Base(e.Path), e.Reason)
}

// imageBlock reads an uploaded image into a base64 content block. The
// path must lie inside uploads, be a regular file and reach it through no
// symlink: the chat page is another origin and its paths are not trusted.
func imageBlock(uploads, path string) (Block, error) {
	if uploads == "" || !filepath.IsAbs(path) {
		return Block{}, &AttachmentError{Path: path, Reason: "it is not a stored upload"}
	}
	root, err := filepath.EvalSymlinks(uploads)
	if err != nil {
		return Block{}, &AttachmentError{Path: path, Reason: "the uploads folder cannot be read"}
	}
	clean := filepath.Clean(path)
	rel, err := filepath.Rel(filepath.Clean(uploads), clean)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return Block{}, &AttachmentError{Path: path, Reason: "it is not inside the uploads folder"}
	}
	real, err := filepath.EvalSymlinks(clean)
	if err != nil || real != filepath.Join(root, rel) {
		return Block{}, &AttachmentError{Path: path, Reason: "it is missing or reached through a link"}
	}
	fi, err := os.Lstat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return Block{}, &AttachmentError{Path: path, Reason: "it is not a regular file"}
	}
	if fi.Size() > maxImageBytes {
		return Block{}, &AttachmentError{Path: path, Reason: fmt.Sprintf("it is larger than %d MB", maxImageBytes>>20)}
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return Block{}, &AttachmentError{Path: path, Reason: "it cannot be read"}
	}
	mt := http.DetectContentType(data)
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = mt[:i]
	}
	if !imageTypes[mt] {
		return Block{}, &AttachmentError{Path: path, Reason: "it is not a PNG, JPEG, GIF or WebP image"}
	}
	return Block{Type: "image", Source: &ImageSource{Type: "base64", MediaType: mt, Data: base64.StdEncoding.EncodeToString(data)}}, nil
}
