"""Fingerprints of every object: changing fields or remotable methods
without bumping VERSION fails here (Nova's test_objects.py pattern).

When an object changes on purpose: bump its VERSION (and teach
obj_make_compatible to drop what older peers do not know), then update
the hash printed by the failure.
"""
import hashlib
import inspect

from keel import objects
from keel.objects import base

objects.register_all()

object_data = {
    'Aggregate': '1.3-f6c90603b09e957f4370fdd7e53ce357',
    'AggregateList': '1.3-ec154d06d07a5b15fc53483f51ddb153',
    'BlockDeviceMapping': '1.21-3d14617f7b08c3bef37ab50599c14e07',
    'BlockDeviceMappingList': '1.18-99fe81bf0018a5ccc9263ba58b276b85',
    'BuildRequest': '1.3-771e1e0be215195470e79085e22c05b2',
    'BuildRequestList': '1.0-f5c728b7fd4a533687fdb0444307dbbc',
    'CellMapping': '1.1-e36bda9345962da2617821d62614f993',
    'CellMappingList': '1.1-81f8ae4c184ae94bae1fcace620bf5b0',
    'ComputeNode': '1.19-a1eaceeb948c98371f8701aef322b250',
    'ConsoleAuthToken': '1.3-725a957fad6fc6cc78eddf20de565930',
    'ComputeNodeList': '1.17-7534bd486947907fecbfe9297c84287e',
    'CpuDiagnostics': '1.0-d256f2e442d1b837735fd17dfe8e3d47',
    'Diagnostics': '1.0-38ad3e9b1a59306253fc03f97936db95',
    'DiskDiagnostics': '1.0-dfd0892b5924af1a585f3fed8c9899ca',
    'Destination': '1.4-85937120d960675ca061c6eecbe988b0',
    'DeviceBus': '1.0-77509ea1ea0dd750d5864b9bd87d3f9d',
    'DeviceMetadata': '1.0-04eb8fd218a49cbc3b1e54b774d179f7',
    'DiskMetadata': '1.0-e7a0f1ccccf10d26a76b28e7492f3788',
    'EC2Ids': '1.0-80d62d87885c10438b93220e23cafff1',
    'Flavor': '1.2-440024cd31c09777c069976c23da34b1',
    'FlavorList': '1.1-2a8f8f65b98de5378949d2b27df7f7df',
    'HVSpec': '1.2-de06bcec472a2f04966b855a49c46b41',
    'HostMapping': '1.0-4ab40e71ff69778b2df0144399fceb91',
    'HostMappingList': '1.1-b4102cb08236c2ab2bf1b2b5879af64e',
    'IDEDeviceBus': '1.0-29d4c9f27ac44197f01b6ac1b7e16502',
    'ImageMeta': '1.8-642d1b2eb3e880a367f37d72dd76162d',
    'ImageMetaProps': '1.44-fb4eb1c3cb42c171f8e980d474184429',
    'Instance': '2.8-1376bf64a468ee5bd14405f316965d1c',
    'InstanceAction': '1.2-4e8a7d093d100c12f29e85e61488977c',
    'InstanceActionEvent': '1.4-c2d0d3c9b10a4e7862d40a7df0a275a0',
    'InstanceActionEventList': '1.1-60f4601b539542cf976ff9c5a25151c7',
    'InstanceActionList': '1.1-c6283da8c9959a7f428f387d63c2fc1e',
    'InstanceDeviceMetadata': '1.0-9afbd980c6784374a84adfd8bf04340f',
    'InstanceExternalEvent': '1.5-1ec57351a9851c1eb43ccd90662d6dd0',
    'InstanceFault': '1.2-8d9561bffef2202e8f60aeae0dd62d18',
    'InstanceFaultList': '1.2-0023cb93efd9b7fbc82eb095d1dc0c96',
    'InstanceGroup': '1.11-05ddeb07cbb6b9d36f4e58f413962961',
    'InstanceGroupList': '1.8-da51cea78259ee1d83e7a4eff6b130e4',
    'InstanceInfoCache': '1.5-1a8429277b48ba86b55c789df3a03d9e',
    'InstanceList': '2.6-cfa3de8a45d074ac48d58ce27429f4f0',
    'InstanceMapping': '1.2-ac4a574ce0656d83973d72b1f1cd745c',
    'InstanceMappingList': '1.3-55d74a64a551a80b1fd644bc5b8b94da',
    'InstanceNUMACell': '1.6-14f3294c963be5f8354b7bb7bbac43fc',
    'InstanceNUMATopology': '1.3-017d74d9e4eeedc0b7beb21b0cb7b5e6',
    'InstancePCIRequest': '1.4-b27808ae189699df27f8f5b908b6393e',
    'InstancePCIRequests': '1.1-6ff21e99849f6ec44ab9f68e8e6372cd',
    'KeyPair': '1.4-b111a213e26da52b8eb6fecc14a1a38a',
    'KeyPairList': '1.3-a2a2a662f47105a333d03ab0cf93b869',
    'MemoryDiagnostics': '1.0-2c995ae0f2223bb0f8e523c5cc0b83da',
    'Migration': '1.8-76db7b9d01a68d436bf8bd45464c2da1',
    'MigrationContext': '1.2-5af92de0596caab66523f44feeb17fe5',
    'MigrationList': '1.5-707ee168c3c01b646a9f845481ce6867',
    'NUMATopologyLimits': '1.1-4235c5da7a76c7e36075f0cd2f5cf922',
    'NicDiagnostics': '1.0-895e9ad50e0f56d5258585e3e066aea5',
    'NetworkInterfaceMetadata': '1.2-6f3d480b40fe339067b1c0dd4d656716',
    'NetworkMetadata': '1.0-2cb8d21b34f87b0261d3e1d1ae5cf218',
    'NetworkRequest': '1.3-3a815ea3df7defa61e0b894dee5288ba',
    'NetworkRequestList': '1.1-6cf6fc8bc8ff8f8eeb8b5b3d3db6637f',
    'PCIDeviceBus': '1.0-2b891cb77e42961044689f3dc2718995',
    'PciDevice': '1.7-6e6410f571a0d3b0e3c0b53a9b6913df',
    'PciDeviceList': '1.3-6cf6fc8bc8ff8f8eeb8b5b3d3db6637f',
    'PciDevicePool': '1.1-3f5ddc3ff7bfa14da7f6c7e9904cc000',
    'PciDevicePoolList': '1.1-6cf6fc8bc8ff8f8eeb8b5b3d3db6637f',
    'RequestGroup': '1.3-cdef7b93bb70f2b79ff8e9798d69b6f3',
    'RequestLevelParams': '1.1-3a718a0ae0bfdec669e7108631b3f313',
    'RequestSpec': '1.15-77bf577ddd523fe3adab10d11f0ca844',
    'Resource': '1.0-d8a2abbb380da583b995fd118f6a8953',
    'ResourceList': '1.0-8a2d62935aee39c2de851b9fed3d07be',
    'ResourceMetadata': '1.0-77509ea1ea0dd750d5864b9bd87d3f9d',
    'SCSIDeviceBus': '1.0-61c1e89a00901069ab1cf2991681533b',
    'SchedulerLimits': '1.0-3eb234b00d3ac7aa87feb5b92779979c',
    'SchedulerRetries': '1.1-3c9c8b16143ebbb6ad7030e999d14cc0',
    'SecurityGroup': '1.2-206cebf8a457fe3c166e2c24e9651346',
    'SecurityGroupList': '1.1-6cf6fc8bc8ff8f8eeb8b5b3d3db6637f',
    'Selection': '1.1-548e3c2f04da2a61ceaf9c4e1589f264',
    'Service': '1.22-9d36bb425aa54d8bcf46e2908c5329d8',
    'ServiceList': '1.19-8fc3220627e3310bf1505d7deddf7e59',
    'ShareMetadata': '1.0-09f69ac0bd47371417b5477a277e43af',
    'Tag': '1.1-7f2b9fdbb8ae319799327825bfc7d428',
    'TagList': '1.1-c76db4808a25a7905f9e44200640e669',
    'ShareMapping': '1.2-8f85fb1db575460cbbe7c3d0c5305196',
    'ShareMappingList': '1.1-5f9c58a4eb3d9ebd807022c0ba415b7b',
    'TaskLog': '1.0-7b8b2b484d3ea9742cec1f7662a467d6',
    'TaskLogList': '1.0-6cf6fc8bc8ff8f8eeb8b5b3d3db6637f',
    'TrustedCerts': '1.0-dbbaf8ed4fc532ba0c81429b24e33796',
    'USBDeviceBus': '1.0-e4c7dd6032e46cd74b027df5eb2d4750',
    'VirtCPUFeature': '1.0-ea2464bdd09084bd388e5f61d5d4fc86',
    'VirtCPUModel': '1.0-bf1599418c22a240ed3b48e05824ca70',
    'VirtCPUTopology': '1.0-fc694de72e20298f7c6bab1083fd4563',
    'VirtualInterface': '1.3-622002a97c097782976e93eb07b90b8f',
    'VirtualInterfaceList': '1.0-bc45f6d194a055394210859b83af8987',
    'XenDeviceBus': '1.0-272a4f899b24e31e42b2b9a7ed7e9194',
}


def fingerprint(cls):
    """VERSION-md5 over the fields' reprs and the remotable methods'
    signatures, the same inputs as oslo's ObjectVersionChecker."""
    fields = sorted(cls.fields.items())
    methods = []
    for name in sorted(dir(cls)):
        thing = getattr(cls, name, None)
        if getattr(thing, "remotable", False):
            spec = inspect.getfullargspec(thing.original_fn)
            methods.append((name, str(spec)))
    data = repr((fields, methods)).encode()
    return "%s-%s" % (cls.VERSION, hashlib.md5(
        data, usedforsecurity=False).hexdigest())


def _classes():
    return {name: classes[0] for name, classes in
            base.KeelObjectRegistry.obj_classes().items()}


def test_versions():
    actual = {name: fingerprint(cls) for name, cls in _classes().items()}
    changed = {name: value for name, value in actual.items()
               if object_data.get(name) != value}
    assert not changed, (
        "Objects changed; bump their VERSION and update object_data: %s" %
        changed)


def test_every_object_has_a_fingerprint():
    assert set(object_data) == set(_classes())


def test_fingerprint_sees_a_field_change():
    cls = _classes()["Tag"]
    before = fingerprint(cls)
    original = cls.fields
    try:
        cls.fields = dict(original, extra=original["tag"])
        assert fingerprint(cls) != before
    finally:
        cls.fields = original
