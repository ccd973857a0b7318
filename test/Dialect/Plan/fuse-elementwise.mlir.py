"""Writes a plan for fuse-elementwise.mlir's BUFFERS test: three add_n of 100
fresh inputs each on a GPU, so that the first two fit one kernel's 256
buffers and the third does not."""
lines = ['gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"',
         "gplan.program @manyBuffers {",
         "  %x = gplan.input 0 : !gplan.buffer<4xf32>"]
t = "!gplan.buffer<4xf32>"
results = []
for k in range(3):
    names = []
    for i in range(100):
        name = f"%c{k}_{i}"
        lines.append(f"  {name} = gplan.copy %x to @gpu0 stream 1 : {t}")
        names.append(name)
    lines.append(f"  %s{k} = gplan.launch add_n({', '.join(names)}) on @gpu0 "
                 f"stream 0 : ({', '.join([t] * 100)}) -> {t}")
    results.append(f"%s{k}")
lines.append(f"  gplan.return {', '.join(results)} : {', '.join([t] * 3)}")
lines.append("}")
print("\n".join(lines))
