import CLV2
import Glibc
import LV2Cycle

/// The plug-in's LV2 entry points. The handle a host holds is the instance's `PluginRunCycle` (the
/// audio-thread functions go straight to it); its `owner` is the `PluginInstance`.

/// The one descriptor, made on first use and kept for the process's life.
nonisolated(unsafe) private let descriptor: UnsafeMutablePointer<LV2_Descriptor> = {
    let descriptor = UnsafeMutablePointer<LV2_Descriptor>.allocate(capacity: 1)
    descriptor.initialize(to: LV2_Descriptor(URI: UnsafePointer(strdup(PluginURI.plugin)), instantiate: instantiate,
                                             connect_port: pluginConnectPort, activate: nil, run: pluginRun,
                                             deactivate: nil, cleanup: cleanup, extension_data: extensionData))
    return descriptor
}()

nonisolated(unsafe) private let workerInterface: UnsafeMutablePointer<LV2_Worker_Interface> = {
    let interface = UnsafeMutablePointer<LV2_Worker_Interface>.allocate(capacity: 1)
    interface.initialize(to: LV2_Worker_Interface(work: work, work_response: pluginWorkResponse, end_run: nil))
    return interface
}()

nonisolated(unsafe) private let stateInterface: UnsafeMutablePointer<LV2_State_Interface> = {
    let interface = UnsafeMutablePointer<LV2_State_Interface>.allocate(capacity: 1)
    interface.initialize(to: LV2_State_Interface(save: save, restore: restore))
    return interface
}()

/// The library's one exported symbol: the plug-in at `index` 0.
/// - Thread: any.
@_cdecl("lv2_descriptor")
public func lv2Descriptor(_ index: UInt32) -> UnsafePointer<LV2_Descriptor>? {
    index == 0 ? UnsafePointer(descriptor) : nil
}

private func instantiate(_ descriptor: UnsafePointer<LV2_Descriptor>?, _ sampleRate: Double, _ bundlePath: UnsafePointer<CChar>?,
                         _ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?) -> LV2_Handle? {
    guard let instance = PluginInstance.make(sampleRate: sampleRate, features: features) else { return nil }
    instance.cycle.owner = Unmanaged.passRetained(instance).toOpaque()
    return Unmanaged.passRetained(instance.cycle).toOpaque()
}

private func owner(of handle: LV2_Handle?) -> PluginInstance? {
    guard let handle, let owner = Unmanaged<PluginRunCycle>.fromOpaque(handle).takeUnretainedValue().owner else { return nil }
    return Unmanaged<PluginInstance>.fromOpaque(owner).takeUnretainedValue()
}

private func cleanup(_ handle: LV2_Handle?) {
    guard let handle else { return }
    let cycle = Unmanaged<PluginRunCycle>.fromOpaque(handle).takeRetainedValue()
    if let owner = cycle.owner {
        let instance = Unmanaged<PluginInstance>.fromOpaque(owner)
        // No thread of the plug-in's may outlive cleanup: the host may unload the code next.
        instance.takeUnretainedValue().stopBackgroundWork()
        instance.release()
    }
    cycle.owner = nil
}

private func extensionData(_ uri: UnsafePointer<CChar>?) -> UnsafeRawPointer? {
    guard let uri else { return nil }
    switch String(cString: uri) {
    case "http://lv2plug.in/ns/ext/worker#interface": return UnsafeRawPointer(workerInterface)
    case "http://lv2plug.in/ns/ext/state#interface": return UnsafeRawPointer(stateInterface)
    default: return nil
    }
}

private func work(_ handle: LV2_Handle?, _ respond: LV2_Worker_Respond_Function?, _ respondHandle: LV2_Worker_Respond_Handle?,
                  _ size: UInt32, _ data: UnsafeRawPointer?) -> LV2_Worker_Status {
    guard let instance = owner(of: handle), let data else { return LV2_WORKER_ERR_UNKNOWN }
    instance.work(data, byteCount: Int(size)) { kind, text in
        var answer = withUnsafeBytes(of: kind) { Array($0) }
        answer += Array(text.utf8.prefix(WorkMessage.maxTextByteCount))
        _ = answer.withUnsafeBytes { respond?(respondHandle, UInt32($0.count), $0.baseAddress) }
    }
    return LV2_WORKER_SUCCESS
}

private func save(_ handle: LV2_Handle?, _ store: LV2_State_Store_Function?, _ storeHandle: LV2_State_Handle?, _ flags: UInt32,
                  _ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?) -> LV2_State_Status {
    guard let instance = owner(of: handle), let store else { return LV2_STATE_ERR_UNKNOWN }
    return instance.save(store: store, handle: storeHandle, features: features)
}

private func restore(_ handle: LV2_Handle?, _ retrieve: LV2_State_Retrieve_Function?, _ retrieveHandle: LV2_State_Handle?, _ flags: UInt32,
                     _ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?) -> LV2_State_Status {
    guard let instance = owner(of: handle), let retrieve else { return LV2_STATE_ERR_UNKNOWN }
    return instance.restore(retrieve: retrieve, handle: retrieveHandle, features: features)
}
