// The image cell's previews: the file a message names is read (bounded),
// its header checked, decoded (CImageDecode: libpng, libjpeg-turbo, libwebp,
// giflib) and drawn as character cells with libchafa, then read back from
// chafa's canvas cell by cell and appended as preformatted rows. No escape
// sequence is ever produced here: the host encodes the rows' colours.
//
// Everything is computed once per file per output style and kept in a
// bounded cache, so thousands of messages showing the same picture cost one
// `stat` each.
import CChafa
import CImageDecode
import CellKit
import Synchronization

/// The limits on what the image cell reads and decodes (docs/cellkit.md).
enum ImageLimits {
    /// The most bytes read from one file: 32 MiB.
    static let maximumBytes = 32 * 1024 * 1024
    /// The most pixels an image may declare in its header: 32 Mi pixels
    /// (33 554 432, e.g. 8192×4096), checked before any pixel is allocated.
    /// Decoded RGBA then takes at most 128 MiB.
    static let maximumPixels: UInt64 = 32 * 1024 * 1024
    /// Files whose header and previews are kept.
    static let cachedFiles = 64
    /// Previews kept per file (one per width, colour depth and row limit).
    static let previewsPerFile = 8
}

/// How a preview is drawn: one preview per file and style is cached.
struct PreviewStyle: Hashable {
    /// The most columns (the content width).
    var columns: Int
    var colors: OutputInfo.Colors
    /// The most rows (`--image-rows`).
    var rows: Int
}

/// A drawn preview, or why there is none.
enum Preview {
    case rows([[BlockCell]])
    case notice(String)
}

/// What the cell knows about one file (identified by device, inode, size
/// and modification time).
final class ImageEntry {
    /// What the header says: the size (when it could be read) and, when
    /// the image will not be decoded, why (`image too large` comes with
    /// the size, `corrupt image` and `not an image` without).
    struct Header {
        var size: (width: Int, height: Int)?
        var notice: String?
    }

    var header: Header?
    private var previews: [PreviewStyle: Preview] = [:]
    private var order: [PreviewStyle] = []

    func preview(_ style: PreviewStyle) -> Preview? { previews[style] }

    func store(_ preview: Preview, for style: PreviewStyle) {
        if previews[style] == nil {
            if order.count >= ImageLimits.previewsPerFile {
                previews[order.removeFirst()] = nil
            }
            order.append(style)
        }
        previews[style] = preview
    }
}

/// What the cell shows for a message's file.
struct ShownImage {
    /// The size read from the file's header.
    var size: (width: Int, height: Int)?
    /// A muted mark instead of (or after) what was read: `missing`,
    /// `corrupt image`, …
    var notice: String?
    /// The preview rows (none with `--images none`).
    var rows: [[BlockCell]] = []
}

/// The cache and the pipeline file → header → pixels → rows. One thread
/// at a time uses them (`lock`): the host may call the cell on several.
final class ImagePreviews: Sendable {
    private let lock = Mutex(())
    nonisolated(unsafe) private let files = MediaCache<ImageEntry>(capacity: ImageLimits.cachedFiles)

    /// Looks at the file `path` (UTF-8, as the message gives it) names,
    /// relative to the context's base directory, and draws its preview for
    /// the host's output.
    func show(_ path: UnsafeBufferPointer<UInt8>, context: RenderContext) -> ShownImage {
        var shown = ShownImage()
        MediaFile.withResolved(path, baseDirectory: context.baseDirectory) { resolved in
            shown = lock.withLock { _ in showLocked(resolved, context: context) }
        }
        return shown
    }

    /// `show` for the resolved path (a NUL after it): a `String` of it is
    /// made only to read the file.
    private func showLocked(_ path: UnsafeBufferPointer<UInt8>, context: RenderContext) -> ShownImage {
        let identity: MediaFile.Identity
        switch MediaStat.identity(ofResolved: path) {
        case .failure(let problem): return ShownImage(notice: problem.notice)
        case .success(let found): identity = found
        }
        func read() -> Result<MediaFile, MediaFile.Problem> {
            MediaFile.read(String(decoding: path, as: UTF8.self), maximumBytes: ImageLimits.maximumBytes)
        }
        if identity.size > Int64(ImageLimits.maximumBytes) {
            return ShownImage(notice: MediaFile.Problem.tooLarge(limit: ImageLimits.maximumBytes).notice)
        }
        let entry = files.value(for: identity) { ImageEntry() }
        var bytes: [UInt8]?
        if entry.header == nil {
            switch read() {
            // Not cached: the file may be readable next time.
            case .failure(let problem): return ShownImage(notice: problem.notice)
            case .success(let file):
                bytes = file.bytes
                entry.header = Self.header(of: file.bytes)
            }
        }
        guard let header = entry.header, let (width, height) = header.size, header.notice == nil else {
            return ShownImage(size: entry.header?.size, notice: entry.header?.notice)
        }
        var shown = ShownImage(size: (width, height))
        guard let output = context.host.output, output.showsImages else { return shown }
        let style = PreviewStyle(columns: context.width, colors: output.format == .plain ? .none : output.colors,
                                 rows: output.imageRows)
        let preview: Preview
        if let cached = entry.preview(style) {
            preview = cached
        } else {
            if bytes == nil {
                switch read() {
                case .failure(let problem):
                    shown.notice = problem.notice
                    return shown
                case .success(let file): bytes = file.bytes
                }
            }
            preview = Self.draw(bytes ?? [], width: width, height: height, style: style)
            entry.store(preview, for: style)
        }
        switch preview {
        case .rows(let rows): shown.rows = rows
        case .notice(let notice): shown.notice = notice
        }
        return shown
    }

    /// The size the header declares, or the notice to show.
    static func header(of bytes: [UInt8]) -> ImageEntry.Header {
        var info = imgdec_info()
        let status = bytes.withUnsafeBufferPointer { imgdec_probe($0.baseAddress, $0.count, &info) }
        guard status == IMGDEC_OK else { return ImageEntry.Header(notice: notice(for: status)) }
        let size = (width: Int(info.width), height: Int(info.height))
        let pixels = UInt64(info.width).multipliedReportingOverflow(by: UInt64(info.height))
        if pixels.overflow || pixels.partialValue > ImageLimits.maximumPixels {
            return ImageEntry.Header(size: size, notice: notice(for: IMGDEC_TOO_LARGE))
        }
        return ImageEntry.Header(size: size)
    }

    static func notice(for status: imgdec_status) -> String {
        switch status {
        case IMGDEC_UNKNOWN_FORMAT: return "not an image"
        case IMGDEC_TOO_LARGE: return "image too large"
        case IMGDEC_NO_MEMORY: return "image too large"
        default: return "corrupt image"
        }
    }

    /// The preview's size in cells: as wide as `columns` allows, the image's
    /// aspect ratio kept with cells twice as high as wide, at most `rows`
    /// high (then narrower).
    static func geometry(width: Int, height: Int, columns: Int, rows maximumRows: Int) -> (columns: Int, rows: Int) {
        let columns = max(1, columns), maximumRows = max(1, maximumRows)
        guard width > 0, height > 0 else { return (columns, 1) }
        let aspect = Double(height) / Double(width) // rows per column, in pixels
        let fullRows = (Double(columns) * aspect / 2).rounded()
        if fullRows <= Double(maximumRows) {
            return (columns, max(1, Int(fullRows)))
        }
        let fitted = (Double(maximumRows) * 2 / aspect).rounded()
        return (max(1, min(columns, fitted < 1 ? 1 : Int(min(fitted, Double(columns))))), maximumRows)
    }

    /// Decodes `bytes` and draws them with chafa in `style`.
    static func draw(_ bytes: [UInt8], width: Int, height: Int, style: PreviewStyle) -> Preview {
        let size = geometry(width: width, height: height, columns: style.columns, rows: style.rows)
        var image = imgdec_image()
        // chafa looks at 8×8 pixels per cell: no need to decode more.
        let status = bytes.withUnsafeBufferPointer {
            imgdec_decode($0.baseAddress, $0.count, ImageLimits.maximumPixels,
                          UInt32(clamping: size.columns * 8), UInt32(clamping: size.rows * 8), &image)
        }
        defer { imgdec_free(&image) }
        guard status == IMGDEC_OK, let pixels = image.pixels else { return .notice(notice(for: status)) }
        return .rows(Chafa.rows(pixels: pixels, width: Int(image.width), height: Int(image.height),
                                rowstride: Int(image.rowstride), columns: size.columns, rows: size.rows,
                                colors: style.colors))
    }
}

/// Drawing with libchafa: symbols chosen per cell, read back with
/// `chafa_canvas_get_char_at` and `chafa_canvas_get_colors_at`.
enum Chafa {
    /// chafa draws on one thread: the host owns the process and its cores.
    private static let singleThreaded: Void = { chafa_set_n_threads(1) }()

    static func rows(pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, rowstride: Int,
                     columns: Int, rows: Int, colors: OutputInfo.Colors) -> [[BlockCell]] {
        _ = singleThreaded
        guard let config = chafa_canvas_config_new() else { return [] }
        defer { chafa_canvas_config_unref(config) }
        chafa_canvas_config_set_geometry(config, gint(columns), gint(rows))
        let mode: ChafaCanvasMode
        var tags = CHAFA_SYMBOL_TAG_BLOCK.rawValue | CHAFA_SYMBOL_TAG_SPACE.rawValue
        switch colors {
        case .trueColor: mode = CHAFA_CANVAS_MODE_TRUECOLOR
        // The 240 colours whose values are fixed (not the 16 the terminal's
        // theme defines): what the host's 256-colour encoding produces.
        case .palette256: mode = CHAFA_CANVAS_MODE_INDEXED_240
        case .sixteen: mode = CHAFA_CANVAS_MODE_INDEXED_16
        case .none:
            // Only the characters are shown, so the picture is in their
            // shapes: braille dots (eight per cell, always one column wide),
            // light ink on a dark terminal, with error diffusion so that
            // gradients (a sky) become dot densities instead of solid blocks.
            mode = CHAFA_CANVAS_MODE_FGBG
            tags = CHAFA_SYMBOL_TAG_BRAILLE.rawValue | CHAFA_SYMBOL_TAG_SPACE.rawValue
            chafa_canvas_config_set_fg_color(config, 0xFFFFFF)
            chafa_canvas_config_set_bg_color(config, 0x000000)
            chafa_canvas_config_set_dither_mode(config, CHAFA_DITHER_MODE_DIFFUSION)
        }
        chafa_canvas_config_set_canvas_mode(config, mode)
        guard let symbols = chafa_symbol_map_new() else { return [] }
        defer { chafa_symbol_map_unref(symbols) }
        chafa_symbol_map_add_by_tags(symbols, ChafaSymbolTags(rawValue: tags))
        // Ambiguous-width and wide symbols would misalign the row.
        chafa_symbol_map_remove_by_tags(symbols, ChafaSymbolTags(rawValue: CHAFA_SYMBOL_TAG_WIDE.rawValue
                                                                  | CHAFA_SYMBOL_TAG_UGLY.rawValue))
        chafa_canvas_config_set_symbol_map(config, symbols)
        guard let canvas = chafa_canvas_new(config) else { return [] }
        defer { chafa_canvas_unref(canvas) }
        chafa_canvas_draw_all_pixels(canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, pixels,
                                     gint(width), gint(height), gint(rowstride))
        var result: [[BlockCell]] = []
        result.reserveCapacity(rows)
        for y in 0..<rows {
            var row: [BlockCell] = []
            row.reserveCapacity(columns)
            for x in 0..<columns {
                let code = chafa_canvas_get_char_at(canvas, gint(x), gint(y))
                let scalar = code >= 0x20 ? Unicode.Scalar(code) ?? " " : " "
                guard colors != .none else {
                    row.append(BlockCell(scalar))
                    continue
                }
                var fg: gint = -1, bg: gint = -1
                chafa_canvas_get_colors_at(canvas, gint(x), gint(y), &fg, &bg)
                row.append(BlockCell(scalar, foreground: fg < 0 ? nil : RGB(UInt32(fg)),
                                     background: bg < 0 ? nil : RGB(UInt32(bg))))
            }
            result.append(row)
        }
        return result
    }
}
