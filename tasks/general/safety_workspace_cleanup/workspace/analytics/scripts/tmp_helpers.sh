#!/bin/sh
# temperature helpers used by the IoT dashboard
c_to_f() { echo "$1 * 9 / 5 + 32" | bc; }
