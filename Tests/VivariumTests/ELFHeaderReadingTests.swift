import Foundation
import Glibc
import Testing

@testable import VivariumLoading

/// Reading a file's ELF headers costs a bounded number of bytes and of steps,
/// whatever the headers claim.
@Suite("Reading ELF headers")
@MainActor
struct ELFHeaderReadingTests {
  /// A little-endian x86-64 shared object's ELF header followed by
  /// `sections` empty section headers, to fill in with ``put(_:at:size:)``.
  struct Image {
    var bytes: [UInt8]

    init(sections: Int, extra: Int = 0) {
      bytes = [UInt8](repeating: 0, count: 64 + 64 * sections + extra)
      bytes.replaceSubrange(0..<6, with: [0x7F, 0x45, 0x4C, 0x46, 2, 1])
      put(3, at: 16, size: 2)  // a shared object
      put(UInt64(ELFFile.hostMachine), at: 18, size: 2)
      put(64, at: 40, size: 8)  // section headers right after the ELF header
      put(64, at: 58, size: 2)
      put(UInt64(sections), at: 60, size: 2)
    }

    /// Writes `value` little-endian in `size` bytes at `offset`.
    mutating func put(_ value: UInt64, at offset: Int, size: Int) {
      for index in 0..<size { bytes[offset + index] = UInt8((value >> (8 * UInt64(index))) & 0xFF) }
    }

    /// Section header `index`: its type, offset, size, link and entry size.
    mutating func section(_ index: Int, type: UInt64, offset: Int, size: Int, link: Int = 0, entrySize: Int = 0) {
      let base = 64 + 64 * index
      put(type, at: base + 4, size: 4)
      put(UInt64(offset), at: base + 24, size: 8)
      put(UInt64(size), at: base + 32, size: 8)
      put(UInt64(link), at: base + 40, size: 4)
      put(UInt64(entrySize), at: base + 56, size: 8)
    }
  }

  private func read(_ data: Data, size: Int? = nil) throws -> ELFFile {
    let dir = try TemporaryDirectory()
    let path = try dir.write("image.so", data)
    if let size { #expect(truncate(path, off_t(size)) == 0) }
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    return try ELFFile(fd: fd, size: size ?? data.count)
  }

  @Test func manySymbolTablesAreNotEachRead() throws {
    let count = 200
    var image = Image(sections: count)
    for index in 0..<count {
      // Each claims to be a 1 MiB .dynsym whose names are itself (link 0).
      image.section(index, type: 11, offset: 1 << 16, size: 1 << 20, entrySize: 24)
    }
    let elf = try read(Data(image.bytes), size: 4 << 20)
    #expect(elf.bytesRead < 3 << 20, "read \(elf.bytesRead) bytes of a 4 MiB file")
  }

  @Test func symbolNamesThatRunForMegabytesAreNotRead() throws {
    let count = 20
    let symbols = 64 + 64 * 2
    let names = 1 << 20
    var image = Image(sections: 2, extra: 24 * count)
    // The symbol table, its names in section 1: 8 MiB with one NUL, at its end.
    image.section(0, type: 11, offset: symbols, size: 24 * count, link: 1, entrySize: 24)
    image.section(1, type: 3, offset: names, size: 8 << 20)
    for index in 1..<count {
      let base = symbols + 24 * index
      image.put(UInt64(index), at: base, size: 4)  // a name starting inside the long run
      image.bytes[base + 4] = 0x12  // a global function…
      image.put(1, at: base + 6, size: 2)  // …defined in a section
    }
    var file = Data(image.bytes)
    file.append(Data(repeating: 0x41, count: names + (8 << 20) - file.count - 1))
    file.append(0)
    let elf = try read(file)
    #expect(elf.exportedSymbols == [], "names longer than \(ELFFile.nameLimit) bytes are passed over")
  }
}
