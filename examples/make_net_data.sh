#!/bin/sh
# Makes again the data net's shipped networks were trained on: pimc playing every seat,
# each decision traced, one run per table, on seeds no measurement uses. A run is a pure
# function of its seed and deal count (any machine, any thread count), so this gives the
# same files, byte for byte in their rows, as the ones strategies/weights/*.json name.
# About 20 minutes a table on 2 cores; then, for example:
#   .venv/bin/python examples/train_net.py --players 2 --study results/net-data
set -e
out=${1:-results/net-data}
mkdir -p "$out"

run() {  # players, deals, seed, the strategy at every seat
  seats=$(python3 -c "print(','.join(['$4'] * $1))")
  .venv/bin/briscola simulate --strategies "$seats" --players "$1" --deals "$2" --seed "$3" \
    --trace "$out/trace-$1p.parquet" --out "$out/result-$1p.parquet" --quiet
}

run 2 69247 910002 pimc
run 3 56762 910003 pimc:samples=16
run 4 8105 910004 pimc:samples=16
run 6 32622 910006 pimc:samples=16
run 5 16902 910005 pimc:samples=16
