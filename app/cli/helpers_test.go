package cli

import "github.com/lets-app/lets/backend/testenv/testutil"

// syncBuffer is a goroutine-safe output buffer.
type syncBuffer = testutil.SyncBuffer
