/** The change impact's summary sentence (sdk/policy-impact-accumulator.ts impactSentence), spread into en.ts under `impact`. */
export default {
  users_losing_one: '{{n}} user loses access to {{devices}}',
  users_losing_other: '{{n}} users lose access to {{devices}}',
  devices_one: '{{n}} device',
  devices_other: '{{n}} devices',
  newly_permitted_one: '{{n}} request is newly permitted',
  newly_permitted_other: '{{n}} requests are newly permitted',
  other_attributes_one: '{{n}} request gets other attributes',
  other_attributes_other: '{{n}} requests get other attributes',
  newly_deciding_one: '{{n}} rule now decides {{requests}} it did not',
  newly_deciding_other: '{{n}} rules now decide {{requests}} they did not',
  requests_one: '{{n}} request',
  requests_other: '{{n}} requests',
  separator: '; ',
  none: 'No replayed request is answered differently',
}
