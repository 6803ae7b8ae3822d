package main

import "os"

// canPassPipes is false: os/exec gives a Windows child no descriptor
// beyond its three streams, so a session start there does not wait for
// its pull (the pipe it would wait on is closed at once).
const canPassPipes = false

// inheritedPipe: never one on Windows.
func inheritedPipe(int) *os.File { return nil }
