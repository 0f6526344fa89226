/** Named schemas of the OpenAPI document, as the screens use them. */
import type { components } from '../generated/api'

type S = components['schemas']
export type Device = S['DeviceResponse']
export type DeviceCreate = S['DeviceCreate']
export type DeviceUpdate = S['DeviceUpdate']
export type DeviceGroup = S['DeviceGroupResponse']
export type DeviceGroupCreate = S['DeviceGroupCreate']
export type Me = S['MeResponse']
export type LoginResponse = S['LoginResponse']
export type SystemInfo = S['SystemInfoResponse']
export type Readiness = S['ReadinessReport']
export type Deploy = S['DeployResponse']
export type AuditEntry = S['AuditEntryResponse']
export type ConsoleExtensions = S['ConsoleExtensionList']
