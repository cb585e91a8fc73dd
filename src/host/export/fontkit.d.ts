// The part of fontkit (the font reader PDFKit itself uses) that figure export needs.
declare module 'fontkit' {
  export interface Font {
    postscriptName: string
    familyName: string
    unitsPerEm: number
    ascent: number
    descent: number
    hasGlyphForCodePoint(codePoint: number): boolean
    layout(text: string): {
      advanceWidth: number
      glyphs: { path: Path }[]
      positions: { xAdvance: number; yAdvance: number; xOffset: number; yOffset: number }[]
    }
  }
  export interface Path {
    translate(x: number, y: number): Path
    toSVG(): string
  }
  export interface FontCollection {
    fonts: Font[]
  }
  export function openSync(path: string, postscriptName?: string): Font | FontCollection
}
