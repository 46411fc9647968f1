package main

import "github.com/relay-dev/relay/internal/cli"

var version = "dev" // set by goreleaser via -ldflags

func main() { cli.Execute(version) }
