"""Replaces the first byte after the dot of a section name in an ELF file's (32- or 64-bit)
.shstrtab with a byte that is not UTF-8 (0xff): flip_section_name.py FILE NAME."""
import struct
import sys

path, name = sys.argv[1], sys.argv[2].encode()
data = bytearray(open(path, 'rb').read())
if data[4] == 2:  # ELFCLASS64
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3A)
    offset, size = struct.unpack_from('<QQ', data, shoff + shstrndx * shentsize + 0x18)
else:
    shoff, = struct.unpack_from('<I', data, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x2E)
    offset, size = struct.unpack_from('<II', data, shoff + shstrndx * shentsize + 0x10)
table = bytes(data[offset:offset + size])
at = table.find(b'\0' + name + b'\0')
if at < 0:
    sys.exit('no section named %s' % name.decode())
data[offset + at + 2] = 0xff
open(path, 'wb').write(data)
