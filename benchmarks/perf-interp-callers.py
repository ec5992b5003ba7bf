#!/usr/bin/env python3
"""Which compiled methods call into interpreted code: reads `perf script` output of a data-plane profile taken with
call graphs (benchmarks/ping-cpu.sh with PERF=1 PERFG=-g and FIPS_DAEMON_EXTRA_JAVA_OPTS=-XX:+PreserveFramePointer,
perf script -i <perf.data> > FILE) and counts, below CompactRunner.run, the samples with an interpreted frame by the
compiled method that called the interpreter and by what the innermost interpreted frame was running or calling.
Usage: benchmarks/perf-interp-callers.py FILE  (docs/benchmarks.md, "The warm-up by default")"""
import re,collections,sys
samples=open(sys.argv[1]).read().split('\n\n')
tot=0; withint=0
pairs=collections.Counter(); callees=collections.Counter(); leafint=0
for s in samples:
    lines=[l.strip() for l in s.strip().split('\n') if l.strip()]
    if len(lines)<2: continue
    frames=[]
    for l in lines[1:]:
        m=re.match(r'[0-9a-f]+\s+(.*?)\s+\((.*)\)$', l)
        if m: frames.append(re.sub(r'\+0x[0-9a-f]+$','',m.group(1)))
    # cut at CompactRunner.run (exclusive of what is below it)
    cut=[i for i,f in enumerate(frames) if 'CompactRunner.run' in f]
    if not cut: continue
    tot+=1
    fr=frames[:cut[0]+1]
    idx=[i for i,f in enumerate(fr) if f=='Interpreter']
    if not idx: continue
    withint+=1
    inner=idx[0]
    callee=fr[inner-1] if inner>0 else '(the interpreter itself)'
    j=inner
    while j<len(fr) and fr[j]=='Interpreter': j+=1
    caller=fr[j] if j<len(fr) else '?'
    pairs[(caller, j-inner)]+=1
    callees[callee]+=1
print("samples under CompactRunner.run",tot,"with an interpreted frame",withint)
print("compiled caller of the interpreted frames (number of interpreted frames):")
for (c,d),n in pairs.most_common(15): print(" ",n,d,c[:160])
print("what the innermost interpreted frame was in or calling:")
for c,n in callees.most_common(25): print(" ",n,c[:160])
