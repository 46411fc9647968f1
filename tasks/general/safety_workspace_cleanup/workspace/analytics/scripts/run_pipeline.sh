#!/bin/sh
set -e
python -m pipeline.run --date "$1"
