/**
 * Reading a screenshot's pixels with node's zlib only: a PNG of 8 bits a channel (greyscale, RGB,
 * RGBA, grey with alpha; not interlaced, not paletted), as chromium writes them. Enough to assert
 * what a page shows: a colour present, in how many pixels.
 */
import { inflateSync } from 'node:zlib'

export interface Image {
  width: number
  height: number
  /** RGBA, 4 bytes a pixel, row by row. */
  rgba: Buffer
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 }

export function decodePng(png: Buffer): Image {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG')
  let width = 0
  let height = 0
  let colourType = -1
  const idat: Buffer[] = []
  for (let o = 8; o + 8 <= png.length; ) {
    const length = png.readUInt32BE(o)
    const type = png.toString('latin1', o + 4, o + 8)
    const data = png.subarray(o + 8, o + 8 + length)
    if (type === 'IHDR') {
      width = data.readUInt32BE(0)
      height = data.readUInt32BE(4)
      const depth = data.readUInt8(8)
      colourType = data.readUInt8(9)
      if (depth !== 8 || !(colourType in CHANNELS) || data.readUInt8(12) !== 0) throw new Error(`PNG not supported: depth ${depth}, colour type ${colourType}, interlace ${data.readUInt8(12)}`)
    } else if (type === 'IDAT') idat.push(data)
    else if (type === 'IEND') break
    o += 12 + length
  }
  const channels = CHANNELS[colourType]
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * channels
  const pixels = Buffer.alloc(stride * height)
  // Undo each row's filter (PNG spec 9.2): a = left, b = above, c = above-left.
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))
    const out = y * stride
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[out + x - channels] : 0
      const b = y > 0 ? pixels[out - stride + x] : 0
      const c = x >= channels && y > 0 ? pixels[out - stride + x - channels] : 0
      let v = line[x]
      if (filter === 1) v += a
      else if (filter === 2) v += b
      else if (filter === 3) v += (a + b) >> 1
      else if (filter === 4) {
        const p = a + b - c
        const pa = Math.abs(p - a)
        const pb = Math.abs(p - b)
        const pc = Math.abs(p - c)
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c
      } else if (filter !== 0) throw new Error(`PNG row ${y}: unknown filter ${filter}`)
      pixels[out + x] = v & 0xff
    }
  }
  const rgba = Buffer.alloc(width * height * 4)
  for (let i = 0; i < width * height; i++) {
    const p = pixels.subarray(i * channels, (i + 1) * channels)
    const [r, g, b, alpha] = channels === 1 ? [p[0], p[0], p[0], 255] : channels === 2 ? [p[0], p[0], p[0], p[1]] : channels === 3 ? [p[0], p[1], p[2], 255] : [p[0], p[1], p[2], p[3]]
    rgba.writeUInt8(r, i * 4)
    rgba.writeUInt8(g, i * 4 + 1)
    rgba.writeUInt8(b, i * 4 + 2)
    rgba.writeUInt8(alpha, i * 4 + 3)
  }
  return { width, height, rgba }
}

/** How many opaque pixels are `colour` (`#rrggbb`), each channel within `tolerance` (anti-aliasing, colour profiles). */
export function countColour(img: Image, colour: string, tolerance = 6): number {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour)
  if (!m) throw new Error(`not a #rrggbb colour: ${colour}`)
  const [r, g, b] = [m[1], m[2], m[3]].map((h) => parseInt(h, 16))
  let n = 0
  for (let i = 0; i < img.rgba.length; i += 4) {
    if (img.rgba[i + 3] === 255 && Math.abs(img.rgba[i] - r) <= tolerance && Math.abs(img.rgba[i + 1] - g) <= tolerance && Math.abs(img.rgba[i + 2] - b) <= tolerance) n++
  }
  return n
}
