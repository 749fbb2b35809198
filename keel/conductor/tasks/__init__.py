"""The super-conductor's long workflows, one module per concern.

build.py      schedule_and_build_instances (the first placement of a boot)
reschedule.py build_instances (a compute's reschedule to an alternate)
cell0.py      burying instances that could not be scheduled in cell0
common.py     what they share: error states with faults and notifications,
              the legacy filter properties, retry bookkeeping
"""
