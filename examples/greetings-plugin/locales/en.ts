export default { errors: { name_taken: 'A greeting for "{{name}}" already exists.' } }
