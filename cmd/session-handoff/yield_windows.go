//go:build windows

package main

// yieldCPU does nothing on Windows.
func yieldCPU(int) {}
