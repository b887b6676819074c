#!/usr/bin/env bash
# profile.sh - ncu evidence for softgen kernels (issue 5, part 7), GPU machine.
#
#   tools/bench/profile.sh OUTDIR RUNTIME_BUILD KERNEL.cubin:M [KERNEL.cubin:M ...]
#
# Runs each kernel once through RUNTIME_BUILD/softgen-run (M rows of random
# data) under `ncu --clock-control none` and writes OUTDIR/profile.csv (ncu's
# raw metrics) and OUTDIR/profile.txt, a table: time, achieved DRAM bandwidth
# (% of peak and GB/s), achieved and theoretical occupancy, registers a
# thread, local-memory (spill) traffic, the stall reasons that dominate, and
# the L2's read requests and sectors (read, write, from the SMs, through the
# partition fabric, all). A KERNEL may be a .ptx (an edited one resealed:
# README.md, "Instruction-level variants").
set -u
if [ $# -lt 3 ]; then
  echo "usage: $0 OUTDIR RUNTIME_BUILD KERNEL.cubin:M ..." >&2
  exit 2
fi
out=$1 rt=$2
shift 2
mkdir -p "$out" || exit 2
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,dram__bytes.sum.per_second,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,sm__maximum_warps_per_active_cycle_pct,launch__registers_per_thread
metrics+=,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
metrics+=,launch__occupancy_limit_warps,launch__grid_size,launch__block_size
metrics+=,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum
metrics+=,smsp__average_warp_latency_issue_stalled_barrier.ratio
metrics+=,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio
metrics+=,smsp__average_warp_latency_issue_stalled_membar.ratio
metrics+=,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio
metrics+=,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio
# the L2 (tools/bench/RESULTS.md "Split rows: shares on the row's alignment": long rows
# are bound by the L2's partition fabric on an H100 / H200)
metrics+=,lts__t_requests_op_read.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum
metrics+=,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors.sum
# how busy the schedulers and pipes are: issue-bound or not (16-bit rows do twice
# f32's arithmetic a byte)
metrics+=,smsp__issue_active.avg.pct_of_peak_sustained_active
metrics+=,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,smsp__inst_executed.sum
: >"$out/profile.csv"
for km in "$@"; do
  k=${km%:*} m=${km##*:}
  ncu --clock-control none --print-units base --metrics "$metrics" -k regex:softgen \
    --launch-count 1 --csv "$rt/softgen-run" --rows "$m" "$k" 2>"$out/ncu-$(basename "$k").err" |
    sed -n '/^"ID"/,$p' | sed "s|^|$(basename "$k"):$m,|" >>"$out/profile.csv"
done
python3 - "$out/profile.csv" <<'PY' | tee "$out/profile.txt"
import csv, sys
rows = {}
for line in open(sys.argv[1]):
    tag, _, rest = line.partition(",")
    rec = next(csv.reader([rest]))
    if rec[0] == "ID":
        continue
    rows.setdefault(tag, {})[rec[-3]] = rec[-1]
cols = [("time_us", "gpu__time_duration.sum", 1e-3), ("dram_%", "dram__throughput.avg.pct_of_peak_sustained_elapsed", 1),
        ("dram_GB/s", "dram__bytes.sum.per_second", 1e-9), ("occ_%", "sm__warps_active.avg.pct_of_peak_sustained_active", 1),
        ("theo_occ_%", "sm__maximum_warps_per_active_cycle_pct", 1), ("regs", "launch__registers_per_thread", 1),
        ("lim_reg", "launch__occupancy_limit_registers", 1), ("lim_smem", "launch__occupancy_limit_shared_mem", 1),
        ("local_ld_B", "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum", 1),
        ("stall_bar", "smsp__average_warp_latency_issue_stalled_barrier.ratio", 1),
        ("stall_lsb", "smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio", 1),
        ("stall_membar", "smsp__average_warp_latency_issue_stalled_membar.ratio", 1),
        ("stall_ssb", "smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio", 1),
        ("stall_mio", "smsp__average_warp_latency_issue_stalled_mio_throttle.ratio", 1),
        ("l2_rd_req_M", "lts__t_requests_op_read.sum", 1e-6), ("l2_rd_sec_M", "lts__t_sectors_op_read.sum", 1e-6),
        ("l2_wr_sec_M", "lts__t_sectors_op_write.sum", 1e-6), ("l2_sm_sec_M", "lts__t_sectors_srcunit_tex.sum", 1e-6),
        ("l2_fabric_sec_M", "lts__t_sectors_srcunit_ltcfabric.sum", 1e-6), ("l2_sec_M", "lts__t_sectors.sum", 1e-6),
        ("issue_%", "smsp__issue_active.avg.pct_of_peak_sustained_active", 1),
        ("xu_%", "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", 1),
        ("fma_%", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 1),
        ("alu_%", "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active", 1),
        ("warp_inst_M", "smsp__inst_executed.sum", 1e-6)]
print("kernel:M " + " ".join(c[0] for c in cols))
for tag, r in rows.items():
    vals = []
    for _, key, scale in cols:
        v = r.get(key, "")
        try:
            f = float(v.replace(",", "")) * scale
            vals.append(f"{f:.4g}")
        except ValueError:
            vals.append(v or "-")
    print(tag + " " + " ".join(vals))
PY
