#!/bin/sh
grep -q 485000 /workspace/report.md
