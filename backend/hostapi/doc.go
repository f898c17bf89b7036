// Package hostapi is the contract of the host's privileged HTTP API
// (lip-1 §8.1): the route paths, the header names, the request and answer
// bodies and the error body with its structured hint. backend/host serves
// these types and backend/hostclient sends and decodes them, so a field
// is declared once for both sides. The JSON field names are part of the
// protocol: third-party clients and the host's golden tests rely on them.
//
// The /lip/approve bodies live in backend/approval, not here.
package hostapi
