import CLV2
import Engine
import FileChecks
import Foundation
import LV2Cycle
import Render
import Synchronization

/// One plug-in instance's control half: the synth's control side, the worker's loads, and state.
///
/// Guarantees:
/// - Loads run on the host's worker thread (or in `restore`, when the host gives no worker), never
///   on the audio thread; a load that fails leaves the playing instrument as it was and is reported
///   through `log:log` and on the notify port.
/// - The synth's control side is used by one thread at a time (`lock`, which the audio thread
///   never takes): the worker, `restore` and `save` may come from different threads.
///
/// - Thread: control. For every member: the host's worker, instantiation and state threads.
final class PluginInstance: @unchecked Sendable {
    let cycle: PluginRunCycle
    private let synth: Synth
    private let lock = Mutex(())
    private let log: PluginLog
    private let instrumentKey: UInt32
    private let absoluteInstrumentKey: UInt32
    private let pathType: UInt32
    private let stringType: UInt32

    /// The instance for `instantiate`, or nil (with a line in the log) when the host lacks a
    /// required feature or asks for a rate out of range.
    static func make(sampleRate: Double, features list: UnsafePointer<UnsafePointer<LV2_Feature>?>?) -> PluginInstance? {
        let features = HostFeatures(list)
        let mapFeature = features.pointer(HostFeatures.map, as: LV2_URID_Map.self)
        let map: (String) -> UInt32 = { uri in
            guard let mapFeature else { return 0 }
            return mapFeature.pointee.map(mapFeature.pointee.handle, uri)
        }
        let log = PluginLog(log: features.pointer(HostFeatures.log, as: LV2_Log_Log.self), map: map)
        guard mapFeature != nil else {
            log.error("the host gave no urid:map, which the plug-in requires")
            return nil
        }
        guard let schedule = features.pointer(HostFeatures.schedule, as: LV2_Worker_Schedule.self) else {
            log.error("the host gave no work:schedule, which the plug-in requires to load instruments")
            return nil
        }
        let blocks = BlockLengths(options: features.pointer(HostFeatures.options, as: LV2_Options_Option.self), map: map)
        // The renderer's 64-frame grid: blocks that are whole quanta need no latency (`PluginRunCycle`).
        let quantum = RenderQuantum.frameCount
        let fixedOnGrid = features.has(HostFeatures.fixedBlockLength) && (blocks.nominal ?? blocks.maximum ?? 0) % quantum == 0
            && (blocks.nominal ?? blocks.maximum ?? 0) > 0
        let powersOnGrid = features.has(HostFeatures.powerOf2BlockLength) && (blocks.minimum ?? 0) >= quantum
        do {
            let synth = try Synth(sampleRate: sampleRate, maxBlockFrameCount: min(Synth.blockFrameRange.upperBound, max(1, blocks.maximum ?? 4_096)))
            let cycle = PluginRunCycle(render: synth.cycle, volume: synth.engine.masterVolume, uris: PluginURIDs(map: map),
                                       schedule: UnsafePointer(schedule), sampleRate: sampleRate, blocksOnGrid: fixedOnGrid || powersOnGrid)
            return PluginInstance(synth: synth, cycle: cycle, log: log, map: map)
        } catch {
            log.error("\(error)")
            return nil
        }
    }

    private init(synth: Synth, cycle: PluginRunCycle, log: PluginLog, map: (String) -> UInt32) {
        self.synth = synth
        self.cycle = cycle
        self.log = log
        instrumentKey = map(PluginURI.instrument)
        absoluteInstrumentKey = map(PluginURI.absoluteInstrument)
        pathType = map(PluginURI.atomPath)
        stringType = map("http://lv2plug.in/ns/ext/atom#String")
        synth.warning = { line in log.warning(line) }
    }

    // MARK: The worker

    /// The host's `work`: carries out one `WorkMessage` and answers through `respond`.
    func work(_ message: UnsafeRawPointer, byteCount: Int, respond: (UInt32, String) -> Void) {
        guard byteCount >= 4 else { return }
        let kind = message.loadUnaligned(as: UInt32.self)
        let text = String(decoding: UnsafeRawBufferPointer(start: message + 4, count: byteCount - 4), as: UTF8.self)
        switch kind {
        case WorkMessage.load:
            let (answer, line) = load(path: text)
            respond(answer, line)
        case WorkMessage.loadDefault:
            // A restored or chosen instrument may have come first: the default is only for none.
            guard lock.withLock({ _ in synth.instrument == nil }) else { return }
            let choice = InstrumentLoader.chooseSoundFont()
            for line in choice.skipped { log.warning(line) }
            let (answer, line) = load(path: choice.path)
            respond(answer, line)
        case WorkMessage.tidy:
            lock.withLock { _ in synth.processEvents() }
        case WorkMessage.report:
            if let path = lock.withLock({ _ in synth.instrument?.path }) { respond(WorkMessage.loaded, path) }
        default:
            break
        }
    }

    /// Opens the instrument at `path` and swaps it in (`Synth.open`): what plays first is decoded
    /// here, the rest streams in the background. Returns the answer for the notify port.
    private func load(path: String) -> (UInt32, String) {
        let result: Result<Void, InstrumentLoadError> = lock.withLock { _ in
            Result { () throws(InstrumentLoadError) in
                try synth.open(path: path, backgroundWarning: { [log] line in log.warning(line) })
            }
        }
        switch result {
        case .success:
            return (WorkMessage.loaded, path)
        case let .failure(error):
            let line = "\(error)"
            log.error(line + " (the previous instrument plays on)")
            return (WorkMessage.failed, line)
        }
    }

    /// Stops the instrument's background decoding and waits for its threads (`cleanup`).
    func stopBackgroundWork() { lock.withLock { _ in synth.stopBackgroundWork() } }

    // MARK: State

    /// The host's `save`: the instrument's path as the host maps it (`state:mapPath`, relative to
    /// the session where it can be) and as it is, absolute.
    func save(store: LV2_State_Store_Function, handle: LV2_State_Handle?, features list: UnsafePointer<UnsafePointer<LV2_Feature>?>?) -> LV2_State_Status {
        guard let path = lock.withLock({ _ in synth.instrument?.path }) else { return LV2_STATE_SUCCESS }
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let features = HostFeatures(list)
        var mapped = absolute
        if let mapPath = features.pointer(HostFeatures.mapPath, as: LV2_State_Map_Path.self),
           let abstract = mapPath.pointee.abstract_path(mapPath.pointee.handle, absolute) {
            mapped = String(cString: abstract)
            free(abstract, features: features)
        }
        let flags = LV2_STATE_IS_POD.rawValue | LV2_STATE_IS_PORTABLE.rawValue
        var status = mapped.withCString { store(handle, instrumentKey, $0, strlen($0) + 1, pathType, flags) }
        if status == LV2_STATE_SUCCESS {
            status = absolute.withCString { store(handle, absoluteInstrumentKey, $0, strlen($0) + 1, stringType, LV2_STATE_IS_POD.rawValue) }
        }
        return status
    }

    /// The host's `restore`: finds the saved instrument by its mapped path, else by its absolute
    /// one, and loads it through the worker when the host passed one (`state:threadSafeRestore`),
    /// else here. State without an instrument leaves the instrument as it is.
    func restore(retrieve: LV2_State_Retrieve_Function, handle: LV2_State_Handle?, features list: UnsafePointer<UnsafePointer<LV2_Feature>?>?) -> LV2_State_Status {
        let features = HostFeatures(list)
        func text(_ key: UInt32) -> String? {
            var size = 0, type: UInt32 = 0, flags: UInt32 = 0
            guard let value = retrieve(handle, key, &size, &type, &flags), type == pathType || type == stringType, size > 0 else { return nil }
            return String(decoding: UnsafeRawBufferPointer(start: value, count: size).prefix { $0 != 0 }, as: UTF8.self)
        }
        var candidates: [String] = []
        if let stored = text(instrumentKey) {
            if let mapPath = features.pointer(HostFeatures.mapPath, as: LV2_State_Map_Path.self),
               let absolute = mapPath.pointee.absolute_path(mapPath.pointee.handle, stored) {
                candidates.append(String(cString: absolute))
                free(absolute, features: features)
            } else {
                candidates.append(stored)
            }
        }
        if let absolute = text(absoluteInstrumentKey) { candidates.append(absolute) }
        guard let path = candidates.first(where: { FileKind(path: $0) != .missing }) ?? candidates.first else { return LV2_STATE_SUCCESS }
        cycle.instrumentRequested.store(true, ordering: .releasing)
        if let schedule = features.pointer(HostFeatures.schedule, as: LV2_Worker_Schedule.self) {
            var message = withUnsafeBytes(of: WorkMessage.load) { Array($0) }
            message += Array(path.utf8.prefix(WorkMessage.maxTextByteCount))
            let status = message.withUnsafeBytes { schedule.pointee.schedule_work(schedule.pointee.handle, UInt32($0.count), $0.baseAddress) }
            if status == LV2_WORKER_SUCCESS { return LV2_STATE_SUCCESS }
        }
        return load(path: path).0 == WorkMessage.loaded ? LV2_STATE_SUCCESS : LV2_STATE_ERR_UNKNOWN
    }

    /// Frees a path the host's `state:mapPath` returned, with its `state:freePath` when given.
    private func free(_ path: UnsafeMutablePointer<CChar>, features: HostFeatures) {
        if let freePath = features.pointer(HostFeatures.freePath, as: LV2_State_Free_Path.self) {
            freePath.pointee.free_path(freePath.pointee.handle, path)
        } else {
            Foundation.free(path)
        }
    }
}
