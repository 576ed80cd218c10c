import AssetPackSystem

extension FileMaterializer {
    /// Writes the members of one coalesced group of a delivered bundle (``DeliveryGroups``): one request
    /// for their archive's range, split among them as it arrives (``SplittingSink``), each member created
    /// when its bytes begin and checked (size, CRC-32, SHA-256) when they end, each in its staging folder
    /// (`staging`). Returns each member's CRC-32, in member order. When the group fails, none of its files is left.
    func writeGroup(_ members: [DeliveryGroups.Member], of items: [ExpansionItem],
                    in staging: StagedFileFolders) throws(AssetPackError) -> [UInt32] {
        guard let request = DeliveryGroups.request(for: members, in: items), let bundle = delivered else {
            throw AssetPackError(.invalidArgument, "a delivery group needs delivered pack members")
        }
        let file = request.file
        let sink = SplittingSink(ranges: members.map(\.range)) { (index) throws(AssetPackError) -> StagedFileSink in
            let item = items[members[index].position]
            return try self.memberSink(item, as: staging.name(of: item.path), in: staging.folder(of: item.path), bundle: bundle, file: file)
        }
        do {
            try bundle.delivery.deliver(request, into: sink)
            return sink.checksums.map { $0 ?? 0 }  // every member checked out, or the delivery threw
        } catch {
            for member in members {
                let path = items[member.position].path
                try? staging.existingFolder(of: path)?.remove(staging.name(of: path))
            }
            throw error
        }
    }

    /// The sink of one member: its file created as `name` (again, on a restart) and its bytes checked as they come.
    private func memberSink(_ item: ExpansionItem, as name: String, in folder: Descriptor, bundle: DeliveredBundleSource,
                            file: String) throws(AssetPackError) -> StagedFileSink {
        guard case .delivered(let layout) = item.origin else {
            throw AssetPackError(.invalidArgument, "\"\(item.path)\" is not a delivered file")
        }
        let created = try create(name, in: folder, mode: finalModeAtCreation(item) ? item.permissions : 0)
        // A member's CRC-32 is known (the manifest's), so a resume checks it by its bytes, never by its mode:
        // bits the umask took away are given back at once.
        if !finalModeAtCreation(item) { try io(created.fd.setPermissions(item.permissions, path: created.path)) }
        let check = DeliveredFileWriter.check(item, bundle, origin: ErrorLocation(bundle.name + "/" + file))
        return try StagedFileSink(file: created, at: 0, size: item.size, check: check,
                                  encoding: layout.deflated ? .deflated(endsStream: true) : .stored, progress: nil)
    }
}
