export default { errors: { name_taken: 'Приветствие для «{{name}}» уже существует.' } }
