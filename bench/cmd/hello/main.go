// Command hello is the cold-start baseline: the smallest Go program that
// writes to stdout, timed beside promptkit's CLI on the same machine.
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
