"""Prints each scalar entry of an .npz checkpoint as `name = value`, in
name order, reading the .npy entries with zipfile and struct alone."""
import ast
import struct
import sys
import zipfile

FORMATS = {"<f4": "<f", "<f8": "<d", "<i8": "<q", "<i4": "<i"}
with zipfile.ZipFile(sys.argv[1]) as archive:
    for entry in sorted(archive.namelist()):
        data = archive.read(entry)
        length = struct.unpack("<H", data[8:10])[0]
        header = ast.literal_eval(data[10:10 + length].decode("latin1"))
        if header["shape"] != () or header["descr"] not in FORMATS:
            continue
        value = struct.unpack(FORMATS[header["descr"]], data[10 + length:])[0]
        print(f"{entry[:-4]} = {value}")
