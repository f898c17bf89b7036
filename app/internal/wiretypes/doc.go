// Package wiretypes holds only a test: it reads the TypeScript wire types of
// the shell (LIP) and the browser pad (Web Surface Protocol 1) with the
// TypeScript compiler and checks them against the JSON Schemas in schemas/,
// both ways, so neither side can drift from the other unnoticed.
package wiretypes
