import AssetPack
