package lip

import "fmt"

// Code is a LIP error code (spec lip-1 §12). HTTP answers carry
// {"error": {"code", "message"}}; WebSocket answers are lip.error envelopes.
type Code string

// The error codes of spec lip-1 §12.
const (
	CodeBadEnvelope        Code = "bad_envelope"
	CodeUnsupportedVersion Code = "unsupported_version"
	CodeUnknownWindow      Code = "unknown_window"
	CodeUnknownUnique      Code = "unknown_unique"
	CodeUndeclaredType     Code = "undeclared_type"
	CodeReservedDomain     Code = "reserved_domain"
	CodeTooLarge           Code = "too_large"
	CodeRateLimited        Code = "rate_limited"
	CodeUnauthorized       Code = "unauthorized"
	CodeForbidden          Code = "forbidden"
	CodeExecDenied         Code = "exec_denied"
	CodeExpired            Code = "expired"
	CodeInvalidManifest    Code = "invalid_manifest"
	CodeInstallFailed      Code = "install_failed"
	CodeInternal           Code = "internal"

	// CodeBadData: the envelope is well formed but its data breaks the JSON
	// Schema the unique declared for its type (unique.json "schema"). Not
	// in §12; docs/lip-deviations.md records why this host adds it.
	CodeBadData Code = "bad_data"
)

// Codes lists every code of §12 in the spec's order.
func Codes() []Code {
	return []Code{
		CodeBadEnvelope, CodeUnsupportedVersion, CodeUnknownWindow, CodeUnknownUnique,
		CodeUndeclaredType, CodeReservedDomain, CodeTooLarge, CodeRateLimited,
		CodeUnauthorized, CodeForbidden, CodeExecDenied, CodeExpired,
		CodeInvalidManifest, CodeInstallFailed, CodeInternal,
	}
}

// HTTPStatus is the HTTP status an answer with this code carries.
func (c Code) HTTPStatus() int {
	switch c {
	case CodeBadEnvelope, CodeUnsupportedVersion, CodeUndeclaredType, CodeReservedDomain, CodeInvalidManifest, CodeBadData:
		return 400
	case CodeUnauthorized:
		return 401
	case CodeForbidden, CodeExecDenied:
		return 403
	case CodeUnknownWindow, CodeUnknownUnique:
		return 404
	case CodeExpired:
		return 410
	case CodeTooLarge:
		return 413
	case CodeRateLimited:
		return 429
	case CodeInstallFailed:
		return 422
	default:
		return 500
	}
}

// Error is a LIP protocol error: a §12 code and a message that says what is
// wrong and what to do. It encodes as {"code", "message"} (the shape of
// lip.error data and of HTTP error bodies).
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Errorf makes an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// HTTPBody is the JSON body of an HTTP error answer: {"error": {code, message}}.
type HTTPBody struct {
	Error *Error `json:"error"`
}
